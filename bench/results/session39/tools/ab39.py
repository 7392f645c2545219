"""Session 39 (issue 13, device): top-k by ranks in blocks (`_topk_blocked`, default) against the
n x n box (`box`: TOPK_LEVEL_S so large that no plan takes blocks), eager and torch.compile, on
topk39.py's programs:

    python3 bench/results/session39/tools/ab39.py [--cases REGEX] [--no-box] [JSON]"""
import contextlib
import re
import sys

sys.path.insert(0, "bench/results/session39/tools")
from topk39 import CASES  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402
from dpl.frontend import aten  # noqa: E402


@contextlib.contextmanager
def box():
    old = aten.TOPK_LEVEL_S
    aten.TOPK_LEVEL_S = 1e9
    aten._topk_plan.cache_clear()
    try:
        yield
    finally:
        aten.TOPK_LEVEL_S = old
        aten._topk_plan.cache_clear()


args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
rest = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--cases")]
variants = {"blocks": None} if "--no-box" in args else {"blocks": None, "box": box}
cases = [c for c in CASES if re.search(pat, c.name)]
rows = time_variants(cases, variants, "eager", 20.0, 28)
report(rows, list(variants), "eager", 28, rest[0] if rest else None)
report(rows, list(variants), "compile", 28, None)
