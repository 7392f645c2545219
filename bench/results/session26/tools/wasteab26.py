"""Session 26 (issue 13, device): merge-columns merging a column axis whose padding idles any
thread ("merge", WASTE_MIN 0) against the tree's 1/8 ("old"), over the 22 sweep programs of seeds
0 and 41-73 whose tile IR it changes (wastechanged.txt, from session 25's patchchanged.py); eager in the same
process.

    python3 bench/results/session26/tools/wasteab26.py [JSON]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import merge_columns  # noqa: E402

found = [(int(s), n) for s, n, *_ in (line.split() for line in open("bench/results/session26/wastechanged.txt"))]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
variants = {"old": None, "merge": lambda: patched(merge_columns, "WASTE_MIN", 0.0)}
rows = time_variants(cases, variants, "eager", 20.0, 32, modes=("eager",))
report(rows, list(variants), "eager", 32, sys.argv[1] if len(sys.argv) > 1 else None)
