"""Session 33 (issue 13, device): the final tree on every ordinary program of this session
(ordinary33 and ordinary33b), against eager in the same process:

    python3 bench/results/session33/tools/ab33all.py [JSON]"""
import sys

sys.path.insert(0, "bench/results/session33/tools")
import ordinary33  # noqa: E402
import ordinary33b  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

cases = ordinary33.CASES + ordinary33b.CASES
rows = time_variants(cases, {"tree": None}, "eager", 20.0, 34, modes=("eager",))
report(rows, ["tree"], "eager", 34, sys.argv[1] if len(sys.argv) > 1 else None)
