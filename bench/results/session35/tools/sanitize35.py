"""Session 35 (GPU): kernels whose schedule the session changed, under compute-sanitizer: a 1x1
convolution whose broadcast input moves its block order (order-blocks on a wgmma tile), one
that moves from an unstaged SIMT tile onto wgmma, a padded one; each run once with a poisoned
output against float64."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(35)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "conv1d 1x1 32x128x2048 -> 1024 (blocks reordered)": (lambda x, w: F.conv1d(x, w), [r(32, 128, 2048), r(1024, 128, 1)]),
    "conv2d 1x1 8x64x56x56 -> 256 (wgmma, was SIMT unstaged)": (lambda x, w: F.conv2d(x, w), [r(8, 64, 56, 56), r(256, 64, 1, 1)]),
    "conv2d 1x1 8x66x64x64 -> 64 (padded)": (lambda x, w: F.conv2d(x, w), [r(8, 66, 64, 64), r(64, 66, 1, 1)]),
}
if __name__ == "__main__":
    run(cases)
