"""Session 33 (issue 13, device): the tree on session 32's ordinary programs (ordinary32.CASES),
against eager in the same process (no regression from this session's fusion rules):

    python3 bench/results/session33/tools/ab33p.py [JSON]"""
import sys

sys.path.insert(0, "bench/results/session32/tools")
from ordinary32 import CASES  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

rows = time_variants(CASES, {"tree": None}, "eager", 20.0, 34, modes=("eager",))
report(rows, ["tree"], "eager", 34, sys.argv[1] if len(sys.argv) > 1 else None)
