"""Session 30 (GPU): order-blocks' reordered grid (a split LayerNorm over (64, 256, 256) with its
16 MB weight and bias: the batch in blockIdx.x) under compute-sanitizer, run by
scripts/sanitize_schedules.run (kernel count and error against float64)."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

F = torch.nn.functional
g = torch.Generator().manual_seed(0)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "layernorm 3x64x256x256 affine, batch in blockIdx.x": (
        lambda x, w, b: F.layer_norm(x, (64, 256, 256), w, b), [r(3, 64, 256, 256), r(64, 256, 256), r(64, 256, 256)]),
}
run(cases)
