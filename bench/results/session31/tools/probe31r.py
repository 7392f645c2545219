"""Session 31 (issue 13, device): the small-row norms of call 1 again on the final tree (buffer
parameters `__restrict__`), against eager and torch.compile in one process:

    python3 bench/results/session31/tools/probe31r.py [JSON]"""
import sys

from torch import nn

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

S = sweep.SweepCase
cases = [
    S("rms1_1984x512", "norm", lambda: nn.RMSNorm((512,), eps=1e-6), ((1984, 512),)),
    S("rms2_1984x8x64", "norm", lambda: nn.RMSNorm((8, 64), eps=1e-6), ((1984, 8, 64),)),
    S("ln1_2048x1024", "norm", lambda: nn.LayerNorm((1024,)), ((2048, 1024),)),
    S("rms1_32x16384", "norm", lambda: nn.RMSNorm((16384,), eps=1e-6), ((32, 16384),)),
    S("rms3_64x5x17x64", "norm", lambda: nn.RMSNorm((5, 17, 64), eps=1e-6), ((64, 5, 17, 64),)),
]
rows = time_variants(cases, {"tree": None}, "eager", 20.0, 34, modes=("eager", "compile"))
report(rows, ["tree"], "eager", 34, sys.argv[1] if len(sys.argv) > 1 else None)
