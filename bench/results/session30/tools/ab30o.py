"""Session 30 (issue 13, device): order-blocks against the tree without it (common30.old_order),
on the sweep programs of seeds 62-130 it changes (orderchanged.txt, from changed30o.py) and the
LayerNorms and RMSNorms of probe30w.py (with and without their parameters), against eager and
torch.compile in one process:

    python3 bench/results/session30/tools/ab30o.py LIST [JSON]"""
import sys

from torch import nn

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session28/tools")
sys.path.insert(0, "bench/results/session30/tools")
import sweep  # noqa: E402
from common28 import cases_of  # noqa: E402
from common30 import old_order  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

S = sweep.SweepCase
cases = cases_of(sys.argv[1]) + [
    S("ln_plain_16x64x256x256", "norm", lambda: nn.LayerNorm((64, 256, 256), elementwise_affine=False), ((16, 64, 256, 256),)),
    S("ln_affine_8x128x128x128", "norm", lambda: nn.LayerNorm((128, 128, 128)), ((8, 128, 128, 128),)),
    S("rms_weight_32x2048x2048", "norm", lambda: nn.RMSNorm((2048, 2048), eps=1e-6), ((32, 2048, 2048),)),
    S("ln_affine_64x291x179x16", "norm", lambda: nn.LayerNorm((291, 179, 16)), ((64, 291, 179, 16),)),
]
variants = {"old": old_order, "tree": None}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager", "compile"))
report(rows, list(variants), "eager", 34, sys.argv[2] if len(sys.argv) > 2 else None)
