"""Session 39 (GPU): top-k in blocks (`_topk_blocked`) under compute-sanitizer, odd sizes (the
last block padded), each run once with a poisoned output against float64
(scripts/sanitize_schedules.run)."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

g = torch.Generator().manual_seed(39)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731

def _both(top):
    """Values and indices in one output (the check compares one tensor)."""
    return top.values + top.indices.float()


cases = {
    "topk 3x5001 k20": (lambda x: _both(torch.topk(x, 20, -1)), [r(3, 5001)]),
    "topk smallest dim0 3001x3 k17": (lambda x: _both(torch.topk(x, 17, 0, largest=False)), [r(3001, 3)]),
    "topk filter 5x30011 k50": (lambda x: x.masked_fill(x < torch.topk(x, 50, -1).values[..., -1:], float("-inf")),
                                [r(5, 30011)]),
}
if __name__ == "__main__":
    run(cases)
