"""Session 30 (GPU): this session's kernels under compute-sanitizer, run by
scripts/sanitize_schedules.run (kernel count and error against float64): chunk-variance's chunk
kernel (a two-result reduce) over rows of 128 x 79 x 79 (chunks of 79 x 79), of 64 x 256 x 256
(chunks of 32 x 256, re-read) and of one dim of 2^20 (chunks of 8192 inside one loop), and
collapse-pointwise's leading axis kept (RMSNorm over 153 x 32 x 97, rows of 97)."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402  (compile, run once poisoned, print the error)

F = torch.nn.functional
g = torch.Generator().manual_seed(0)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "layernorm 3x128x79x79 chunks of 6241": (lambda x: F.layer_norm(x, (128, 79, 79)), [r(3, 128, 79, 79)]),
    "layernorm 2x64x256x256 chunks of 8192": (lambda x: F.layer_norm(x, (64, 256, 256)), [r(2, 64, 256, 256)]),
    "layernorm 3x1048576 chunks of 8192 in one loop": (lambda x: F.layer_norm(x, (1048576,)), [r(3, 1048576)]),
    "rmsnorm 5x153x32x97 leading axis kept": (lambda x: F.rms_norm(x, (153, 32, 97), eps=1e-6), [r(5, 153, 32, 97)]),
}
run(cases)
