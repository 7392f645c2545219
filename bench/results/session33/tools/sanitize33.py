"""Session 33 (GPU): this session's new kernels under compute-sanitizer (scripts/sanitize_schedules
.run: kernel count and error against float64): top-k by rounds, a depthwise 7x7 window a thread
per output, a grouped convolution as a batched contraction, a squeeze-excite block, a cross
entropy, a convolution then a pixel shuffle, a sort over loop-index comparisons; odd sizes."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(7)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "topk 5 of 37 x 301": (lambda x: torch.topk(x, 5, dim=-1).values, [r(37, 301)]),
    "topk 3 smallest of 300 x 29 dim 0": (lambda x: torch.topk(x, 3, dim=0, largest=False).values, [r(300, 29)]),
    "depthwise 7x7 3x40x23x29 (+bias)": (lambda x, w, b: F.conv2d(x, w, b, padding=3, groups=40), [r(3, 40, 23, 29), r(40, 1, 7, 7), r(40)]),
    "grouped 3x3 4 groups 2x32x13x15": (lambda x, w: F.conv2d(x, w, padding=1, groups=4), [r(2, 32, 13, 15), r(32, 8, 3, 3)]),
    "squeeze-excite 3x40x9x11": (lambda x, a, b: x * torch.sigmoid(torch.relu(x.mean((2, 3)) @ a) @ b)[:, :, None, None],
                                 [r(3, 40, 9, 11), r(40, 5), r(5, 40)]),
    "cross entropy 33 x 1001": (lambda x, t: F.cross_entropy(x, t.long()), [r(33, 1001), torch.randint(0, 1001, (33,), generator=g)]),
    "conv then pixel shuffle 2x8x9x11": (lambda x, w: F.pixel_shuffle(F.conv2d(x, w, padding=1), 2), [r(2, 8, 9, 11), r(32, 8, 3, 3)]),
    "sort 19 x 45 dim 1": (lambda x: torch.sort(x, dim=1).values, [r(19, 45)]),
}
if __name__ == "__main__":
    run(cases)
