"""Session 48 (issue 13, device): the ninth batch of ordinary programs (ordinary48.py) against
eager and torch.compile in the same process:

    python3 bench/results/session48/tools/ab48.py [--cases REGEX] [JSON]"""
import re
import sys

sys.path.insert(0, "bench/results/session48/tools")
from ordinary48 import CASES  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
rest = [a for i, a in enumerate(args) if not a.startswith("--") and args[i - 1] != "--cases"]
cases = [c for c in CASES if re.search(pat, c.name)]
rows = time_variants(cases, {"dpl": None}, "eager", 20.0, 34)
report(rows, ["dpl"], "eager", 34, rest[0] if rest else None)
report(rows, ["dpl"], "compile", 34, None)
