"""Session 48 (GPU): sessions 47-48's kernels under compute-sanitizer (memcheck, racecheck,
synccheck; session 47's racecheck was owed), each run once with a poisoned output against
float64 (scripts/sanitize_schedules.run): reduction accumulators contracted to fma (RMSNorm's
register-held sum of squares, a matmul's register tile, flash attention), the det by stacked
pivots, a stack along the last axis as one select (the interleaved rotary), as_strided frames,
a demodulation norm collapsed past its prologue (collapse-loops), and a grouped convolution whose
weight is computed in the program (the window's mod folded: its weight staged)."""
import sys

import torch
from torch import nn

F = nn.functional
sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

g = torch.Generator().manual_seed(48)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731


def modconv(x, w, s):
    """StyleGAN2's modulated conv: weight scaled by the style, demodulated, grouped by sample."""
    b, c, h, wd = x.shape
    wm = w[None] * s[:, None, :, None, None]
    wm = wm * torch.rsqrt(wm.pow(2).sum((2, 3, 4), keepdim=True) + 1e-8)
    y = F.conv2d(x.reshape(1, b * c, h, wd), wm.reshape(b * wm.shape[1], c, 3, 3), padding=1, groups=b)
    return y.reshape(b, -1, h, wd)


def rope_interleaved(x, cos, sin):
    x1, x2 = x[..., 0::2], x[..., 1::2]
    return torch.stack((x1 * cos - x2 * sin, x1 * sin + x2 * cos), -1).flatten(-2)


cases = {
    "rmsnorm 64x1000": (lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w, [r(64, 1000), r(1000)]),
    "linear 300x257to130": (lambda x, w: F.linear(x, w), [r(300, 257), r(130, 257)]),
    "sdpa causal 2x4x200x64": (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), [r(2, 4, 200, 64)] * 3),
    "det 16x5x5": (lambda a: torch.linalg.det(a), [r(16, 5, 5)]),
    "rope interleaved 2x4x64x32": (rope_interleaved, [r(2, 4, 64, 32), r(64, 16), r(64, 16)]),
    "frames as_strided 4x4000": (lambda x: torch.log(x.as_strided((4, 23, 400), (4000, 160, 1)).pow(2).sum(-1) + 1e-6), [r(4, 4000)]),
    "modconv 2x32x20x20": (modconv, [r(2, 32, 20, 20), r(48, 32, 3, 3), r(2, 32)]),
}
if __name__ == "__main__":
    run(cases)
