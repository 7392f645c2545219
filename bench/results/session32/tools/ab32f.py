"""Session 32 (issue 13, device): the tree against the session's start (common32.start: no
collapse-matmul-axes, padding by concats) on every ordinary program the session's changes touch
(ordinary32.CASES: convolutions, pools, linears over a batch of sequences, an MLP and an encoder
layer on such inputs), eager and torch.compile in the same process:

    python3 bench/results/session32/tools/ab32f.py [JSON]"""
import sys

sys.path.insert(0, "bench/results/session32/tools")
from common32 import start  # noqa: E402
from ordinary32 import CASES  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

TOUCHED = ("conv", "linear3d", "mlp", "block", "pool")
cases = [c for c in CASES if c.cls in TOUCHED and not c.name.startswith(("mlp_512", "avgpool_32"))]
variants = {"start": start, "tree": None}
rows = time_variants(cases, variants, "eager", 20.0, 34)
report(rows, list(variants), "eager", 34, sys.argv[1] if len(sys.argv) > 1 else None)
report(rows, list(variants), "compile", 34, None)
