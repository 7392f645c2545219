"""Session 37 (issue 13, device): the programs that reach ops the frontend gained this session
(grid_sample, lgamma / digamma, gathers through an embedding lookup), against eager and
torch.compile in the same process:

    python3 bench/results/session37/tools/ab37.py [--ordinary] [--cases REGEX] [JSON]

`--ordinary`: session 34's 55 ordinary programs instead (gathers changed under sort, topk,
median, scatter and gather)."""
import re
import sys

import torch
import torch.nn.functional as F
from torch import nn

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

S = sweep.SweepCase


class STN(nn.Module):
    """A spatial transformer: an affine grid from theta, the input sampled bilinearly on it."""

    def forward(self, x, theta):
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        return F.grid_sample(x, grid, align_corners=False)


class Sample(nn.Module):
    def __init__(self, mode, padding, align=False, scale=1.1):
        super().__init__()
        self.mode, self.padding, self.align, self.scale = mode, padding, align, scale

    def forward(self, x, g):
        return F.grid_sample(x, torch.tanh(g) * self.scale, mode=self.mode, padding_mode=self.padding,
                             align_corners=self.align)


class FlowWarp(nn.Module):
    """Backward warping by an optical flow (RAFT, video interpolation): a pixel grid plus the
    flow, normalised to [-1, 1], sampled bilinearly with border padding."""

    def forward(self, x, flow):
        b, _, h, w = x.shape
        ys, xs = torch.meshgrid(torch.arange(h, device=x.device), torch.arange(w, device=x.device), indexing="ij")
        gx = (xs + flow[:, 0]) * (2.0 / (w - 1)) - 1
        gy = (ys + flow[:, 1]) * (2.0 / (h - 1)) - 1
        return F.grid_sample(x, torch.stack((gx, gy), -1), padding_mode="border", align_corners=True)


class PickLogProbs(nn.Module):
    """log_softmax over a vocabulary, the log-probabilities of given tokens gathered."""

    def __init__(self, rows, vocab, k):
        super().__init__()
        self.register_buffer("idx", torch.randint(0, vocab, (rows, k), generator=torch.Generator().manual_seed(0)))

    def forward(self, x):
        return torch.log_softmax(x, -1).gather(1, self.idx)


class GatherRows(nn.Module):
    """torch.gather along dim 0 (rows picked per column), then scaled."""

    def __init__(self, n, k, d):
        super().__init__()
        self.register_buffer("idx", torch.randint(0, n, (k, d), generator=torch.Generator().manual_seed(1)))

    def forward(self, x):
        return x.gather(0, self.idx) * 2.0


class PoissonLL(nn.Module):
    """The full Poisson log-likelihood of counts: k log(rate) - rate - lgamma(k + 1), summed."""

    def forward(self, log_rate, k):
        counts = torch.floor(k.abs() * 4)
        return (counts * log_rate - log_rate.exp() - torch.lgamma(counts + 1)).sum(-1)


class DirichletKL(nn.Module):
    """KL(Dir(a) || Dir(b)) per row, with lgamma and digamma of the concentrations."""

    def forward(self, x, y):
        a, b = F.softplus(x) + 0.1, F.softplus(y) + 0.1
        a0, b0 = a.sum(-1), b.sum(-1)
        return (torch.lgamma(a0) - torch.lgamma(a).sum(-1) - torch.lgamma(b0) + torch.lgamma(b).sum(-1)
                + ((a - b) * (torch.digamma(a) - torch.digamma(a0)[:, None])).sum(-1))


class Special(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, x):
        return self.fn(x)


CASES = [
    S("stn_32x64x64x64", "vision", lambda: STN(), ((32, 64, 64, 64), (32, 2, 3))),
    S("grid_bilinear_16x32x128x128", "vision", lambda: Sample("bilinear", "zeros"), ((16, 32, 128, 128), (16, 128, 128, 2))),
    S("grid_nearest_border_8x64x96x96", "vision", lambda: Sample("nearest", "border"), ((8, 64, 96, 96), (8, 96, 96, 2))),
    S("grid_bicubic_reflect_4x16x128x128", "vision", lambda: Sample("bicubic", "reflection", scale=1.3), ((4, 16, 128, 128), (4, 128, 128, 2))),
    S("grid3d_bilinear_2x16x32x32x32", "vision", lambda: Sample("bilinear", "zeros", align=True), ((2, 16, 32, 32, 32), (2, 32, 32, 32, 3))),
    S("flow_warp_8x64x128x128", "vision", lambda: FlowWarp(), ((8, 64, 128, 128), (8, 2, 128, 128))),
    S("pick_logprobs_64x32000_k256", "nlp", lambda: PickLogProbs(64, 32000, 256), ((64, 32000),)),
    S("gather_rows_8192x1024_k4096", "pointwise", lambda: GatherRows(8192, 4096, 1024), ((8192, 1024),)),
    S("poisson_ll_4096x4096", "pointwise", lambda: PoissonLL(), ((4096, 4096), (4096, 4096))),
    S("dirichlet_kl_65536x64", "pointwise", lambda: DirichletKL(), ((65536, 64), (65536, 64))),
    S("lgamma_4096x4096", "pointwise", lambda: Special(torch.lgamma), ((4096, 4096),)),
    S("digamma_4096x4096", "pointwise", lambda: Special(torch.digamma), ((4096, 4096),)),
]

if __name__ == "__main__":
    args = sys.argv[1:]
    pat = args[args.index("--cases") + 1] if "--cases" in args else ""
    rest = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--cases")]
    cases = CASES
    if "--ordinary" in args:  # session 34's 55 ordinary programs
        sys.path.insert(0, "bench/results/session34/tools")
        from ordinary34 import CASES as O1  # noqa: E402
        from ordinary34b import CASES as O2  # noqa: E402
        cases = O1 + O2
    cases = [c for c in cases if re.search(pat, c.name)]
    rows = time_variants(cases, {"tree": None}, "eager", 20.0, 36, modes=("eager", "compile"))
    report(rows, ["tree"], "eager", 36, rest[0] if rest else None)
    report(rows, ["tree"], "compile", 36, None)
