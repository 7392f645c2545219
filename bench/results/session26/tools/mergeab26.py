"""Session 26 (issue 13, device): merge-columns counting split-reduce's blocks ("split", the tree)
against session 25's rule (SPLIT_ROWS huge, "old"), over the sweep programs of seeds 0 and 41-130
whose tile IR it changes (mergechanged.txt, from session 25's patchchanged.py); eager in the same process.

    python3 bench/results/session26/tools/mergeab26.py [JSON]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import merge_columns  # noqa: E402

found = [(int(s), n) for s, n, *_ in (line.split() for line in open("bench/results/session26/mergechanged.txt"))]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
variants = {"old": lambda: patched(merge_columns, "SPLIT_ROWS", 10**12), "split": None}
rows = time_variants(cases, variants, "eager", 20.0, 32, modes=("eager",))
report(rows, list(variants), "eager", 32, sys.argv[1] if len(sys.argv) > 1 else None)
