"""Session 29 (GPU): split-matmul-k's sparse splits and a displaced split, given explicitly and
padded, under compute-sanitizer: matmul_tn 1117x19x347 (32 x 32, split 3 of 11 trips padded to
12: the count the sparse split displaced), 64x3389x300 (64 x 64, a sparse split of 5 over 10
trips), 31x3001x997 (thin M, 64 x 64 split 16 of 2 trips), run by
scripts/sanitize_schedules.run (kernel count and error against float64):

    bash bench/results/session27/tools/sanitize27.sh PREFIX TIMEOUT bench/results/session29/tools/sanitize29.py"""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402  (compile, run once poisoned, print the error)

g = torch.Generator().manual_seed(0)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "displaced split 3, tn 1117x19x347": (lambda a, b: a.T @ b, [r(347, 1117), r(347, 19)]),
    "sparse split 5, tn 64x3389x300": (lambda a, b: a.T @ b, [r(300, 64), r(300, 3389)]),
    "sparse split 16, tn 31x3001x997": (lambda a, b: a.T @ b, [r(997, 31), r(997, 3001)]),
}
run(cases)
