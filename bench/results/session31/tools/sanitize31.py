"""Session 31 (GPU): kernels that take buffers through merge-dims' views under compute-sanitizer,
run by scripts/sanitize_schedules.run (kernel count and error against float64): an RMSNorm over
(5, 17, 64) (a row of 5440 staged by float4s), a LayerNorm over (64, 83) (rows of 5312), a
LayerNorm over (79, 79) (odd rows of 6241), a mean over dims 1, 2 of 576 x 64 x 27, an amax
over dims 1, 2 of 64 x 499 x 191 and a sum over dims 1, 2 beside a last dim (a middle run)."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(0)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "rmsnorm 64x5x17x64 over 3 dims": (lambda x, w: F.rms_norm(x, (5, 17, 64), w, 1e-6), [r(64, 5, 17, 64), r(5, 17, 64)]),
    "layernorm 8x256x64x83 over (64, 83)": (lambda x, w, b: F.layer_norm(x, (64, 83), w, b), [r(8, 256, 64, 83), r(64, 83), r(64, 83)]),
    "layernorm 7x128x79x79 over (79, 79)": (lambda x: F.layer_norm(x, (79, 79)), [r(7, 128, 79, 79)]),
    "mean 576x64x27 over dims 1, 2": (lambda x: x.mean(dim=(1, 2)), [r(576, 64, 27)]),
    "amax 64x499x191 over dims 1, 2": (lambda x: x.amax(dim=(1, 2)), [r(64, 499, 191)]),
    "sum 33x7x9x5 over dims 1, 2": (lambda x: x.sum(dim=(1, 2)), [r(33, 7, 9, 5)]),
}
run(cases)
