"""Session 32 (GPU): the kernels of sessions 2 and 31 again, now that every buffer parameter is
`__restrict__` (session 31, section 4), under compute-sanitizer: scripts/sanitize_schedules'
eight (row packs, a narrow column sum, skinny split-K, tensor-core linear + amax / sum, a padded
bmm), and a merged RMSNorm, a merged mean, a middle run and two fused tails; kernel count and
error against float64 each."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run, session2_cases  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(1)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = session2_cases()
cases.update({
    "rmsnorm 64x5x17x64 over 3 dims": (lambda x, w: F.rms_norm(x, (5, 17, 64), w, 1e-6), [r(64, 5, 17, 64), r(5, 17, 64)]),
    "mean 576x64x27 over dims 1, 2": (lambda x: x.mean(dim=(1, 2)), [r(576, 64, 27)]),
    "sum 33x7x9x5 over dims 1, 2": (lambda x: x.sum(dim=(1, 2)), [r(33, 7, 9, 5)]),
    "silu_mul 457x3x521": (lambda x, y: F.silu(x) * y, [r(457, 3, 521), r(457, 3, 521)]),
    "sigmoid_bias 2x1039x1235": (lambda x, y, b: x * torch.sigmoid(y + b), [r(2, 1039, 1235), r(2, 1039, 1235), r(1235)]),
})
if __name__ == "__main__":
    run(cases)
