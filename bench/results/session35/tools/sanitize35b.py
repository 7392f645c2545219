"""Session 35 (GPU): the frontend's new ops under compute-sanitizer, odd sizes, each run once with a
poisoned output against float64 (scripts/sanitize_schedules.run)."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(35)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "hypot 37x129": (lambda a, b: torch.hypot(a, b), [r(37, 129), r(37, 129)]),
    "erfinv 37x129": (lambda x: torch.erfinv(torch.tanh(x) * 0.99), [r(37, 129)]),
    "i0 37x129": (lambda x: torch.i0(x * 5), [r(37, 129)]),
    "logcumsumexp 7x300": (lambda x: torch.logcumsumexp(x * 30, 1), [r(7, 300)]),
    "histc 1001": (lambda x: torch.histc(x, 17, -2.0, 2.0), [r(1001)]),
    "pdist 37x9": (lambda x: F.pdist(x), [r(37, 9)]),
}
if __name__ == "__main__":
    run(cases)
