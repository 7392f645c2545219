"""Session 32 (GPU): a transposed convolution (its interleaved zeros a fill loop), a grouped and a
dilated convolution (their padding a select fused into the window) under compute-sanitizer
(scripts/sanitize_schedules.run: kernel count and error against float64)."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(5)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "conv_transpose2d 4x4 s2 p1 2x64x17x19 -> 32": (lambda x, w: F.conv_transpose2d(x, w, stride=2, padding=1), [r(2, 64, 17, 19), r(64, 32, 4, 4)]),
    "conv2d 3x3 groups 8 4x64x15x17": (lambda x, w: F.conv2d(x, w, padding=1, groups=8), [r(4, 64, 15, 17), r(64, 8, 3, 3)]),
    "conv2d 3x3 dilation 2 2x32x29x31 -> 48": (lambda x, w: F.conv2d(x, w, padding=2, dilation=2), [r(2, 32, 29, 31), r(48, 32, 3, 3)]),
}
if __name__ == "__main__":
    run(cases)
