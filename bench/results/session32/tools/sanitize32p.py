"""Session 32 (GPU): padded windows as one elementwise op under compute-sanitizer
(scripts/sanitize_schedules.run: kernel count and error against float64): a 3x3 convolution
(padding 1), a padding wider than the input (3 over 2 x 3), a 1-D convolution (padding 4), max
pooling (-inf padding fused into its reduce) and average pooling excluding the padding."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(3)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "conv2d 3x3 p1 4x32x29x31 -> 64": (lambda x, w: F.conv2d(x, w, padding=1), [r(4, 32, 29, 31), r(64, 32, 3, 3)]),
    "conv2d 3x3 p3 2x4x2x3 -> 5": (lambda x, w: F.conv2d(x, w, padding=3), [r(2, 4, 2, 3), r(5, 4, 3, 3)]),
    "conv1d 5 p4 8x32x301 -> 64": (lambda x, w: F.conv1d(x, w, padding=4), [r(8, 32, 301), r(64, 32, 5)]),
    "max_pool 3 s2 p1 8x64x57x55": (lambda x: F.max_pool2d(x, 3, 2, 1), [r(8, 64, 57, 55)]),
    "avg_pool 3 s1 p1 no pad count 4x32x33x35": (lambda x: F.avg_pool2d(x, 3, 1, 1, count_include_pad=False), [r(4, 32, 33, 35)]),
}
if __name__ == "__main__":
    run(cases)
