"""Session 34 (GPU): the frontend's new ops under compute-sanitizer (scripts/sanitize_schedules
.run): F.unfold and F.fold (index tensors of two dims), scatter_reduce (amax; mean without
self), bucketize, searchsorted by rows, embedding_bag (mean), addbmm; odd sizes."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(7)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
ri = lambda lo, hi, *s: torch.randint(lo, hi, s, generator=g)  # noqa: E731
cases = {
    "unfold 3x3 s2 2x5x13x11": (lambda x: F.unfold(x, 3, padding=1, stride=2), [r(2, 5, 13, 11)]),
    "fold 3x3 to 9x10": (lambda x: F.fold(x, (9, 10), 3, padding=1), [r(2, 27, 90)]),
    "scatter_reduce amax 37x29": (lambda x, v, i: x.scatter_reduce(1, i.long(), v, reduce="amax"), [r(37, 29), r(37, 13), ri(0, 29, 37, 13)]),
    "scatter_reduce mean 41x7": (lambda x, v, i: x.scatter_reduce(0, i.long(), v, reduce="mean", include_self=False), [r(41, 7), r(60, 7), ri(0, 41, 60, 7)]),
    "bucketize 33x31": (lambda x: torch.bucketize(x, torch.linspace(-2, 2, 17, dtype=x.dtype, device=x.device)).to(x.dtype), [r(33, 31)]),
    "searchsorted rows 9x101": (lambda s, v: torch.searchsorted(s.sort(-1).values, v).to(s.dtype), [r(9, 101), r(9, 37)]),
    "embedding_bag mean 45x7 of 301": (lambda w, i: F.embedding_bag(i.long(), w, mode="mean"), [r(301, 24), ri(0, 301, 45, 7)]),
    "addbmm 5x37x19 @ 5x19x23": (lambda i, a, b: torch.addbmm(i, a, b), [r(37, 23), r(5, 37, 19), r(5, 19, 23)]),
}
if __name__ == "__main__":
    run(cases)
