"""Session 38 (device): collapse-matmul-axes with prologue factors, A/B in one process: "before"
takes a contraction of exactly two loads only (as before this session), "tree" the tree of the
call; the programs it changes (changed38.py) and prologue patterns by themselves:

    python3 bench/results/session38/tools/ab38b.py [--cases REGEX] [--eager-only] [JSON]"""
import re
import sys

import torch
from torch import nn

for s in ("32", "33", "34", "38"):
    sys.path.insert(0, f"bench/results/session{s}/tools")
sys.path.insert(0, "bench")
import ordinary32, ordinary33, ordinary33b, ordinary34, ordinary34b, ordinary38  # noqa: E402,E401
import sweep  # noqa: E402
from changed38 import two_loads_only  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

S = sweep.SweepCase


class NormLinear(nn.Module):
    """RMSNorm (or LayerNorm) then a projection, over a batch of sequences."""

    def __init__(self, d, o, kind="rms"):
        super().__init__()
        self.norm = nn.RMSNorm(d) if kind == "rms" else nn.LayerNorm(d)
        self.proj = nn.Linear(d, o, bias=False)

    def forward(self, x):
        return self.proj(self.norm(x))


class ScaledLinear(nn.Module):
    """A per-feature scale on the input of a projection (SmoothQuant-style), over a batch."""

    def __init__(self, d, o):
        super().__init__()
        self.s, self.proj = nn.Parameter(torch.empty(d)), nn.Linear(d, o)

    def forward(self, x):
        return self.proj(x * self.s)


OWN = [
    S("rmsnorm_linear_8x512x1024to1024", "mlp", lambda: NormLinear(1024, 1024), ((8, 512, 1024),)),
    S("rmsnorm_linear_4x333x768to2304", "mlp", lambda: NormLinear(768, 2304), ((4, 333, 768),)),
    S("layernorm_linear_16x197x384to1536", "mlp", lambda: NormLinear(384, 1536, "ln"), ((16, 197, 384),)),
    S("scaled_linear_8x256x1024to4096", "mlp", lambda: ScaledLinear(1024, 4096), ((8, 256, 1024),)),
]

args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
rest = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--cases")]
every = OWN + [c for m in (ordinary32, ordinary33, ordinary33b, ordinary34, ordinary34b, ordinary38) for c in m.CASES]
every += sweep.all_cases(0) + sweep.all_cases(91)
cases = [c for c in every if re.search(pat, c.name)]
modes = ("eager",) if "--eager-only" in args else ("eager", "compile")
rows = time_variants(cases, {"before": two_loads_only, "tree": None}, "eager", 20.0, 36, modes=modes)
report(rows, ["before", "tree"], "eager", 36, rest[0] if rest else None)
if "compile" in modes:
    report(rows, ["before", "tree"], "compile", 36, None)
