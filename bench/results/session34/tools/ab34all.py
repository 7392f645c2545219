"""Session 34 (device): every ordinary program of the session (ordinary34's 31, ordinary34b's 24)
against eager, on the tree of the call:

    python3 bench/results/session34/tools/ab34all.py [JSON]"""
import sys

sys.path.insert(0, "bench/results/session34/tools")
from ordinary34 import CASES as A  # noqa: E402
from ordinary34b import CASES as B_  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

rows = time_variants(A + B_, {"tree": None}, "eager", 20.0, 34, modes=("eager",))
report(rows, ["tree"], "eager", 34, sys.argv[1] if len(sys.argv) > 1 else None)
