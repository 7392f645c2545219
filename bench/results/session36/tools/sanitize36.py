"""Session 36 (GPU): slice assignments and concatenations under compute-sanitizer, odd sizes,
each run once with a poisoned output against float64 (scripts/sanitize_schedules.run): the
concat trees of fold-concats and lower-to-loops, their parts in one launch (kernel.apart)."""
import sys

import torch

sys.path.insert(0, "scripts")
sys.path.insert(0, "tests")
from sanitize_schedules import run  # noqa: E402
from frontend_ops import _TemporalShift, _slice_chain  # noqa: E402
from test_fold_concats import _Assignments  # noqa: E402

g = torch.Generator().manual_seed(36)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "temporal shift 24x40x7x9": (_TemporalShift(8), [r(24, 40, 7, 9)]),
    "slice chain 3x5x7": (lambda x, y: torch.cat([t.flatten() for t in _slice_chain(x, y)]), [r(3, 5, 7), r(3, 5, 4)]),
    "cat of cats 37x129": (lambda a, b: torch.cat((torch.cat((a[:, :5], b[:, 3:]), 1), a), 0) * 1.0, [r(37, 129), r(37, 127)]),
    **{f"assignments {s} 37x41x43": (_Assignments(s, (37, 41, 43)), [r(37, 41, 43), r(37, 41, 43)]) for s in range(4)},
}
if __name__ == "__main__":
    run(cases)
