"""Session 46 (device): statistics of a whole tensor feeding it (`x / x.abs().max()`, `x -
x.mean()`, `x.var()`: before, one kernel on one block) and sums of a constant (a Cholesky's first
column: a kernel the schedule ran on one block), before and after this session's change
(fold-invariant-reductions, split-row-stats of a kernel with no outer free loop), against eager
and torch.compile in the same process:

    python3 bench/results/session46/tools/global46.py [--cases REGEX] [JSON]"""
import re
import sys
from contextlib import contextmanager

import torch
from torch import nn

from dpl.bench.ab import report, time_variants
import dpl.transforms.loop.fold_invariant_reductions as FIR
import dpl.transforms.loop.fuse_loops as FL
import dpl.transforms.tile.schedule as S

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session45/tools")
import sweep  # noqa: E402


class F(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *xs):
        return self.f(*xs)


class GaussianLogProb(nn.Module):
    """session 45's batch of multivariate normal log-densities (Cholesky, a triangular solve)."""

    def forward(self, a, x):
        n = a.shape[-1]
        cov = a @ a.mT + n * torch.eye(n, device=a.device)
        l = torch.linalg.cholesky(cov)
        z = torch.linalg.solve_triangular(l, x[..., None], upper=False)[..., 0]
        return -0.5 * (z * z).sum(-1) - l.diagonal(dim1=-2, dim2=-1).log().sum(-1) - 0.5 * n * 1.8378770664093453


@contextmanager
def before():
    """The schedule before this session: nothing folded, no whole-tensor row split."""
    old = (FL.fold_invariant_reductions, FIR.fold_invariant_reductions, S.split_rows)
    split_rows = S.split_rows

    def no_whole(kernel, sms, smem=S.ROW_SMEM_BYTES):
        return (False, "") if isinstance(S.row_body(kernel), str) else split_rows(kernel, sms, smem)

    FL.fold_invariant_reductions = FIR.fold_invariant_reductions = lambda root: False
    S.split_rows = no_whole
    try:
        yield
    finally:
        FL.fold_invariant_reductions, FIR.fold_invariant_reductions, S.split_rows = old


C = sweep.SweepCase
maxnorm = lambda: F(lambda x: x / x.abs().max())  # noqa: E731
CASES = [
    *[C(f"max_normalize_{n}", "whole", maxnorm, ((n,),)) for n in (1000, 4099, 16384, 262147, 4 * 1024 * 1024, 64 * 1024 * 1024)],
    C("center_4096x1001", "whole", lambda: F(lambda x: x - x.mean()), ((4096, 1001),)),
    C("standardize_8x480000", "whole", lambda: F(lambda x: (x - x.mean()) / x.std()), ((8, 480000),)),
    C("min_max_3x1000x999", "whole", lambda: F(lambda x: (x - x.min()) / (x.max() - x.min())), ((3, 1000, 999),)),
    C("var_4096x1024", "whole", lambda: F(lambda x: x.var()), ((4096, 1024),)),
    C("var_16M_odd", "whole", lambda: F(lambda x: x.var()), ((4099, 4093),)),
    C("times_row_sum_4096x1024", "whole", lambda: F(lambda x: x * x[0].sum()), ((4096, 1024),)),
    C("mvn_logprob_16384x8", "linalg", lambda: GaussianLogProb(), ((16384, 8, 8), (16384, 8))),
    C("mvn_logprob_65536x4", "linalg", lambda: GaussianLogProb(), ((65536, 4, 4), (65536, 4))),
]

args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
rest = [a for i, a in enumerate(args) if not a.startswith("--") and args[i - 1] != "--cases"]
cases = [c for c in CASES if re.search(pat, c.name)]
rows = time_variants(cases, {"before": before, "now": None}, "eager", 20.0, 26)
report(rows, ["before", "now"], "eager", 26, rest[0] if rest else None)
report(rows, ["before", "now"], "compile", 26, None)
