"""Session 30 (issue 13, host): the sweep programs whose tile IR this session's changes alter
(common30.old against the tree), classes norm, softmax, reduce, pointwise, linear_epilogue:

    python bench/results/session30/tools/changed30.py 62,63,...  > bench/results/session30/changed.txt"""
import sys

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session30/tools")
import sweep  # noqa: E402
from common30 import old  # noqa: E402
from dpl.bench.ab import changed  # noqa: E402

if __name__ == "__main__":
    seen: set[str] = set()
    classes = ["norm", "softmax", "reduce", "pointwise", "linear_epilogue"]
    for seed in [int(s) for s in sys.argv[1].split(",")]:
        cases = [c for c in sweep.all_cases(seed=seed, classes=classes) if c.name not in seen]
        seen.update(c.name for c in cases)
        for c in changed(cases, old):
            print(seed, c.name, c.cls, flush=True)
