"""Session 32 (issue 13, device): the tree against the session's start (common32.start) on
convolutions the session did not aim at (ordinary32.CASES of class conv-other: grouped,
dilated, transposed), eager and torch.compile in the same process:

    python3 bench/results/session32/tools/ab32g.py [JSON]"""
import sys

sys.path.insert(0, "bench/results/session32/tools")
from common32 import start  # noqa: E402
from ordinary32 import CASES  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

cases = [c for c in CASES if c.cls == "conv-other"]
variants = {"start": start, "tree": None}
rows = time_variants(cases, variants, "eager", 20.0, 34)
report(rows, list(variants), "eager", 34, sys.argv[1] if len(sys.argv) > 1 else None)
report(rows, list(variants), "compile", 34, None)
