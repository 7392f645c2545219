"""Session 42 (GPU): merge sorts (`_merge_sort`, forced on rows past 64) under compute-sanitizer:
the leaf box, levels' binary searches (gathers at computed positions) and scatters, on rows
padded to a power of two, 32-bit keys over positions and 64-bit keys with positions beside,
each run once with a poisoned output against float64 (scripts/sanitize_schedules.run)."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402
from dpl.frontend import aten as A  # noqa: E402

A._sort_plan = lambda rows, n, k=0: n > A.MERGE_LEAF
g = torch.Generator().manual_seed(42)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731

cases = {
    "sort 5x300 descending": (lambda x: torch.sort(x, -1, descending=True)[0], [r(5, 300)]),
    "sort 3x200 float64 dim 0": (lambda x: torch.sort(x.double(), 0)[0].float(), [r(200, 3)]),
    "argsort 7x129": (lambda x: torch.argsort(x, -1).float(), [r(7, 129)]),
    "topk 100 of 4x500": (lambda x: torch.topk(x, 100, -1)[0], [r(4, 500)]),
}
if __name__ == "__main__":
    run(cases)
