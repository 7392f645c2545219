"""Session 40 (GPU): scatter-adds (atomics at an index read from memory) under compute-sanitizer,
odd sizes, indices with repeats, each run once with a poisoned output against float64
(scripts/sanitize_schedules.run)."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

g = torch.Generator().manual_seed(40)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731

cases = {
    "index_add 37x33 into 11x33": (lambda x, y: x.new_zeros(11, 33).index_add(0, (y.abs() * 5).long() % 11, x),
                                   [r(37, 33), r(37)]),
    "scatter_add 5x33 into 5x9": (lambda b, x, y: b.scatter_add(1, (y.abs() * 3).long() % 9, x), [r(5, 9), r(5, 33), r(5, 33)]),
    "scatter_reduce mean 5x33 into 5x9": (lambda b, x, y: b.scatter_reduce(1, (y.abs() * 3).long() % 9, x, "mean"),
                                          [r(5, 9), r(5, 33), r(5, 33)]),
    "index_put accumulate 7x3x129": (lambda b, x, y: torch.index_put(b, ((y.abs() * 4).long() % 7,), x, accumulate=True),
                                     [r(7, 3, 129), r(50, 3, 129), r(50)]),
}
if __name__ == "__main__":
    run(cases)
