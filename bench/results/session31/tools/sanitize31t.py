"""Session 31 (GPU): pointwise kernels whose tails run in their launch (a block of fewer
threads guarded in the fused kernel) under compute-sanitizer, run by
scripts/sanitize_schedules.run (kernel count and error against float64): silu(x) * y over 2275117
floats (a tail of 1), over 457 x 3 x 521 (3), x * sigmoid(y + b) with a bias along an odd last dim
over 2 x 1039 x 1235 (2)."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(0)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "silu_mul 2275117": (lambda x, y: F.silu(x) * y, [r(2275117), r(2275117)]),
    "silu_mul 457x3x521": (lambda x, y: F.silu(x) * y, [r(457, 3, 521), r(457, 3, 521)]),
    "sigmoid_bias 2x1039x1235": (lambda x, y, b: x * torch.sigmoid(y + b), [r(2, 1039, 1235), r(2, 1039, 1235), r(1235)]),
}
run(cases)
