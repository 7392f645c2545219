"""Session 34 (GPU): this session's new kernels under compute-sanitizer (scripts/sanitize_schedules
.run: kernel count and error against float64): a Gram matrix of a reshaped feature map (a merged
view on the tensor cores), a cumprod of a sigmoid (the sigmoid its own kernel), reflect,
replicate and circular pads as gathers (one before a convolution on the tensor cores); odd
sizes."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(7)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "gram 3x40x7x9": (lambda f: f.reshape(3, 40, 63) @ f.reshape(3, 40, 63).transpose(1, 2) / 63, [r(3, 40, 7, 9)]),
    "cumprod sigmoid 5x640": (lambda x: torch.cumprod(torch.sigmoid(x), dim=1), [r(5, 640)]),
    "reflect pad conv 2x8x13x17": (lambda x, w: F.conv2d(F.pad(x, (1, 1, 1, 1), mode="reflect"), w), [r(2, 8, 13, 17), r(16, 8, 3, 3)]),
    "replicate pad 1-D 3x5x37": (lambda x: F.pad(x, (3, 2), mode="replicate") * 2, [r(3, 5, 37)]),
    "circular pad 2-D 2x3x11x7": (lambda x: F.pad(x, (2, 1, 3, 0), mode="circular") + 1, [r(2, 3, 11, 7)]),
}
if __name__ == "__main__":
    run(cases)
