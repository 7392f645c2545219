"""Session 47 (device): the 54 cases of session 46's call 4 (the suite's operator cases and sweep
seed 46) with this session's code, against eager in the same process (compare with call 2's
as_written column: the later commits must not slow them):

    python3 bench/results/session47/tools/suite47.py [--cases REGEX] [JSON]"""
import re
import sys

sys.path.insert(0, "bench")
import suite  # noqa: E402
import sweep  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402


class SuiteCase:
    def __init__(self, case):
        self.name, self.case = case.name, case

    def build(self, device):
        return self.case.make()


args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
rest = [a for i, a in enumerate(args) if not a.startswith("--") and args[i - 1] != "--cases"]
cases = [SuiteCase(c) for c in suite.CASES if "decoder" not in c.tags] + sweep.all_cases(46, per_class=2)
cases = [c for c in cases if re.search(pat, c.name)]
rows = time_variants(cases, {"dpl": None}, "eager", 20.0, 36)
report(rows, ["dpl"], "eager", 36, rest[0] if rest else None)
