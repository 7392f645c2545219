"""Session 42 (issue 13, device): long-row sorts (ordinary42.py) against eager and
torch.compile in the same process, or the n x n box against merging:

    python3 bench/results/session42/tools/ab42.py [--cal] [--cases REGEX] [--variants tree,box,merge] [--eager-only] [JSON]

Variants: `tree` (`_sort_plan` decides), `box` (never merge), `merge` (always merge rows past
MERGE_LEAF)."""
import re
import sys
from contextlib import contextmanager

sys.path.insert(0, "bench/results/session42/tools")
from ordinary42 import CAL, CASES  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.frontend import aten as A  # noqa: E402


@contextmanager
def plan(rule):
    with patched(A, "_sort_plan", rule):
        A._topk_plan.cache_clear()  # it asks _sort_plan
        try:
            yield
        finally:
            A._topk_plan.cache_clear()


VARIANTS = {
    "tree": None,
    "box": lambda: plan(lambda rows, n, k=0: False),
    "merge": lambda: plan(lambda rows, n, k=0: n > A.MERGE_LEAF),
}

args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
names = args[args.index("--variants") + 1].split(",") if "--variants" in args else ["tree"]
rest = [a for i, a in enumerate(args) if not a.startswith("--") and args[i - 1] not in ("--cases", "--variants")]
modes = ("eager",) if "--eager-only" in args else ("eager", "compile")
picked = [c for c in (CAL if "--cal" in args else CASES) if re.search(pat, c.name)]
rows = time_variants(picked, {k: VARIANTS[k] for k in names}, "eager", 20.0, 34, modes=modes)
report(rows, names, "eager", 34, rest[0] if rest else None)
if "compile" in modes:
    report(rows, names, "compile", 34, None)
