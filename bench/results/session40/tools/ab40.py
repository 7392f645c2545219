"""Session 40 (issue 13, device): the sixth batch of ordinary programs (ordinary40.py) against
eager and torch.compile in the same process:

    python3 bench/results/session40/tools/ab38.py [--cases REGEX] [--eager-only] [JSON]"""
import re
import sys

sys.path.insert(0, "bench/results/session40/tools")
from ordinary40 import CASES  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
rest = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--cases")]
modes = ("eager",) if "--eager-only" in args else ("eager", "compile")
cases = [c for c in CASES if re.search(pat, c.name)]
rows = time_variants(cases, {"tree": None}, "eager", 20.0, 34, modes=modes)
report(rows, ["tree"], "eager", 34, rest[0] if rest else None)
if "compile" in modes:
    report(rows, ["tree"], "compile", 34, None)
