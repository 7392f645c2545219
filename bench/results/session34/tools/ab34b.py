"""Session 34 (issue 13, device): dpl on ordinary34b's programs, against eager (and torch.compile
with `--compile`) in the same process:

    python3 bench/results/session34/tools/ab34b.py [--compile] [--cases REGEX] [JSON]"""
import re
import sys

sys.path.insert(0, "bench/results/session34/tools")
from ordinary34b import CASES  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

args = sys.argv[1:]
modes = ("eager", "compile") if "--compile" in args else ("eager",)
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
rest = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--cases")]
cases = [c for c in CASES if re.search(pat, c.name)]
rows = time_variants(cases, {"tree": None}, "eager", 20.0, 34, modes=modes)
report(rows, ["tree"], "eager", 34, rest[0] if rest else None)
if "compile" in modes:
    report(rows, ["tree"], "compile", 34, None)
