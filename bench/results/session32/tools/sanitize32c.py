"""Session 32 (GPU): contractions that collapse-matmul-axes puts on the tensor cores, under
compute-sanitizer (scripts/sanitize_schedules.run: kernel count and error against float64):
3x3 convolutions with padded output positions and a padded K (333 -> 352), with a BatchNorm and
ReLU epilogue, stride 2, a 1-D convolution, a linear over 3 x 333 rows of 257 (ragged K) and one
over 8 x 96 rows."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(2)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "conv2d 3x3 8x37x29x23 -> 64": (lambda x, w, b: F.conv2d(x, w, b, padding=1), [r(8, 37, 29, 23), r(64, 37, 3, 3), r(64)]),
    "conv2d 3x3 bn relu 4x64x28x28 -> 128": (lambda x, w, m, s: F.relu((F.conv2d(x, w, padding=1) - m) * s), [r(4, 64, 28, 28), r(128, 64, 3, 3), r(128, 1, 1), r(128, 1, 1)]),
    "conv2d 3x3 stride 2 8x64x65x63 -> 96": (lambda x, w: F.conv2d(x, w, stride=2, padding=1), [r(8, 64, 65, 63), r(96, 64, 3, 3)]),
    "conv1d 5 16x64x301 -> 128": (lambda x, w: F.conv1d(x, w, padding=2), [r(16, 64, 301), r(128, 64, 5)]),
    "linear 3x333x257 -> 511": (lambda x, w, b: F.linear(x, w, b), [r(3, 333, 257), r(511, 257), r(511)]),
    "linear 8x96x128 -> 512": (lambda x, w: F.linear(x, w), [r(8, 96, 128), r(512, 128)]),
}
if __name__ == "__main__":
    run(cases)
