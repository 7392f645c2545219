"""Session 45 (device): small-matrix linear algebra (frontend/export_rewrites.py: Cholesky,
triangular solves, cholesky_solve, slogdet) in programs that use it, against eager (cuSOLVER /
MAGMA batched) and torch.compile in the same process; before this session each stopped at an
unsupported op:

    python3 bench/results/session45/tools/linalg45.py [--cases REGEX] [JSON]"""
import re
import sys

import torch
from torch import nn

from dpl.bench.ab import report, time_variants  # noqa: E402

sys.path.insert(0, "bench")
import sweep  # noqa: E402


class GaussianLogProb(nn.Module):
    """A batch of multivariate normal log-densities from their covariances (as
    torch.distributions.MultivariateNormal computes them): Cholesky, a triangular solve, the
    log of the factor's diagonal."""

    def forward(self, a, x):
        n = a.shape[-1]
        cov = a @ a.mT + n * torch.eye(n, device=a.device)
        l = torch.linalg.cholesky(cov)
        z = torch.linalg.solve_triangular(l, x[..., None], upper=False)[..., 0]
        return -0.5 * (z * z).sum(-1) - l.diagonal(dim1=-2, dim2=-1).log().sum(-1) - 0.5 * n * 1.8378770664093453


class GPPosterior(nn.Module):
    """A Gaussian-process posterior mean and log marginal likelihood over batches of 8 points."""

    def forward(self, x, y):
        k = torch.exp(-0.5 * torch.cdist(x, x).pow(2)) + 0.1 * torch.eye(x.shape[-2], device=x.device)
        l = torch.linalg.cholesky(k)
        alpha = torch.cholesky_solve(y[..., None], l)
        mean = (k @ alpha)[..., 0]
        lml = -0.5 * (y[..., None] * alpha).sum((-1, -2)) - torch.linalg.slogdet(k).logabsdet / 2
        return mean, lml


S = sweep.SweepCase
CASES = [
    S("mvn_logprob_65536x4", "linalg", lambda: GaussianLogProb(), ((65536, 4, 4), (65536, 4))),
    S("mvn_logprob_16384x8", "linalg", lambda: GaussianLogProb(), ((16384, 8, 8), (16384, 8))),
    S("gp_posterior_8192x8x3", "linalg", lambda: GPPosterior(), ((8192, 8, 3), (8192, 8))),
]

args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
rest = [a for i, a in enumerate(args) if not a.startswith("--") and args[i - 1] != "--cases"]
cases = [c for c in CASES if re.search(pat, c.name)]
rows = time_variants(cases, {"now": None}, "eager", 20.0, 34)
report(rows, ["now"], "eager", 34, rest[0] if rest else None)
report(rows, ["now"], "compile", 34, None)
