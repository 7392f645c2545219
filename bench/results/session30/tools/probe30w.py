"""Session 30 (issue 13, device): what a split norm's affine parameters cost. The normalize
kernel of a LayerNorm over (64, 256, 256) reads its weight and bias (16 MB each) once per row of
the batch, the blocks of one row first: between two reads of a parameter tile the kernel streams
a whole row in and out (32 MB), so the parameters may come from DRAM each time. LayerNorm and
RMSNorm with and without their parameters, timed against eager in one process:

    python3 bench/results/session30/tools/probe30w.py [JSON]"""
import sys

from torch import nn

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

S = sweep.SweepCase
cases = [
    S("ln_affine_16x64x256x256", "norm", lambda: nn.LayerNorm((64, 256, 256)), ((16, 64, 256, 256),)),
    S("ln_plain_16x64x256x256", "norm", lambda: nn.LayerNorm((64, 256, 256), elementwise_affine=False), ((16, 64, 256, 256),)),
    S("ln_affine_64x291x179x16", "norm", lambda: nn.LayerNorm((291, 179, 16)), ((64, 291, 179, 16),)),
    S("ln_plain_64x291x179x16", "norm", lambda: nn.LayerNorm((291, 179, 16), elementwise_affine=False), ((64, 291, 179, 16),)),
    S("rms_weight_29x153x32x97", "norm", lambda: nn.RMSNorm((153, 32, 97), eps=1e-6), ((29, 153, 32, 97),)),
    S("rms_plain_29x153x32x97", "norm", lambda: nn.RMSNorm((153, 32, 97), eps=1e-6, elementwise_affine=False), ((29, 153, 32, 97),)),
]
rows = time_variants(cases, {"tree": None}, "eager", 20.0, 34, modes=("eager", "compile"))
report(rows, ["tree"], "eager", 34, sys.argv[1] if len(sys.argv) > 1 else None)
