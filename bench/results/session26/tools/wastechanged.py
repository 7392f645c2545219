"""Session 26 (issue 13, host): which sweep reductions, softmaxes and norms change their tile IR
when merge-columns merges a column axis whose padding idles any of its threads (WASTE_MIN 0)
against the tree's WASTE_MIN (1/8: a column axis of 29 -> 32 stays unmerged).

    python bench/results/session26/tools/wastechanged.py 0,41,...,73 > wastechanged.txt
"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import changed, patched  # noqa: E402
from dpl.transforms.tile import merge_columns  # noqa: E402

seen: set[str] = set()
for seed in [int(s) for s in sys.argv[1].split(",")]:
    cases = [c for c in sweep.all_cases(seed=seed, classes=["reduce", "softmax", "norm"]) if c.name not in seen]
    seen.update(c.name for c in cases)
    for c in changed(cases, lambda: patched(merge_columns, "WASTE_MIN", 0.0)):
        print(seed, c.name, c.cls, flush=True)
