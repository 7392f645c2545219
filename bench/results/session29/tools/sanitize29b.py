"""Session 29 (GPU): wgmma tiles 32 wide for a thin N (schedule_mma.NARROW_N) under
compute-sanitizer: matmul_tn 5867x23x1024 (wgmma 128 x 32, split 4) and a tt bmm of N = 29
(8 x 700x29x1152), run by scripts/sanitize_schedules.run (kernel count and error against
float64)."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402  (compile, run once poisoned, print the error)

g = torch.Generator().manual_seed(0)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "wgmma 128x32 split 4, tn 5867x23x1024": (lambda a, b: a.T @ b, [r(1024, 5867), r(1024, 23)]),
    "narrow bmm_tt 8x700x29x1152": (lambda a, b: a.transpose(1, 2) @ b.transpose(1, 2), [r(8, 1152, 700), r(8, 29, 1152)]),
}
run(cases)
