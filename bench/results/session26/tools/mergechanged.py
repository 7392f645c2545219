"""Session 26 (issue 13, host): which sweep reductions, softmaxes and norms change their tile IR
when merge-columns counts the blocks split-reduce spreads a one-pass reduction over
(merge_columns.SPLIT_ROWS) against not (SPLIT_ROWS huge: session 25's rule).

    python bench/results/session26/tools/mergechanged.py 0,41,42,...,61 > mergechanged.txt
"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import changed, patched  # noqa: E402
from dpl.transforms.tile import merge_columns  # noqa: E402

seen: set[str] = set()
for seed in [int(s) for s in sys.argv[1].split(",")]:
    cases = [c for c in sweep.all_cases(seed=seed, classes=["reduce", "softmax", "norm", "linear_reduce"])
             if c.name not in seen]
    seen.update(c.name for c in cases)
    for c in changed(cases, lambda: patched(merge_columns, "SPLIT_ROWS", 10**12)):
        print(seed, c.name, c.cls, flush=True)
