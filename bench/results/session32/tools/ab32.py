"""Session 32 (issue 13, device): collapse-matmul-axes against the tree without it
(common32.old_collapse) on the ordinary programs whose contraction has a side of several loops
(ordinary32.CASES: convolutions, linears over a batch of sequences, an MLP and an encoder layer
on such inputs), eager and torch.compile in the same process:

    python3 bench/results/session32/tools/ab32.py [JSON]"""
import sys

sys.path.insert(0, "bench/results/session32/tools")
from common32 import old_collapse  # noqa: E402
from ordinary32 import CASES  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

AFFECTED = ("conv", "linear3d", "mlp", "block")
cases = [c for c in CASES if c.cls in AFFECTED and not c.name.startswith(("dwconv", "mlp_512"))]
variants = {"old": old_collapse, "collapse": None}
rows = time_variants(cases, variants, "eager", 20.0, 34)
report(rows, list(variants), "eager", 34, sys.argv[1] if len(sys.argv) > 1 else None)
report(rows, list(variants), "compile", 34, None)
