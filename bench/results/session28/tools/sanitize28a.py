"""Session 28 (GPU): the float atomic max/min helpers (one integer atomic, section 2) under
compute-sanitizer: amax and amin over dim 0 of 44032 x 64 and over dims 0, 1 of 1024 x 43 x 64,
each split over hundreds of blocks that fold into the outputs, run by
scripts/sanitize_schedules.run (kernel count and error against float64):

    bash bench/results/session27/tools/sanitize27.sh PREFIX TIMEOUT bench/results/session28/tools/sanitize28a.py"""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402  (compile, run once poisoned, print the error)

g = torch.Generator().manual_seed(0)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "split amax d0 44032x64": (lambda x: x.amax(0), [r(44032, 64) - 2]),
    "split amin d0 44032x64": (lambda x: x.amin(0), [r(44032, 64) + 2]),
    "split amax d01 1024x43x64": (lambda x: x.amax((0, 1)), [r(1024, 43, 64)]),
}
run(cases)
