"""Session 23 (issue 13, device): merge-columns A/B: every sweep program whose tile IR it changes
(mergechanged.txt, from mergechanged.py: seeds 0-48), never merging (WASTE_MIN = 1) against the
rule; eager in the same process (bench/ab.py). Both run the lane-major column tree.

    python3 bench/results/session23/tools/mergeab23.py [JSON]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import merge_columns  # noqa: E402

found = [(int(s), n) for s, n, *_ in (line.split() for line in open("bench/results/session23/mergechanged.txt"))]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
variants = {"no merge": lambda: patched(merge_columns, "WASTE_MIN", 1.0), "merge": None}
rows = time_variants(cases, variants, "eager", 20.0, 32, modes=("eager",))
report(rows, list(variants), "eager", 32, sys.argv[1] if len(sys.argv) > 1 else None)
