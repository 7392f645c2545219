"""Session 30 (issue 13, host): the sweep programs whose tile IR order-blocks changes (common30.old_order
against the tree), classes norm, pointwise, linear_epilogue:

    python bench/results/session30/tools/changed30o.py 62,63,...  > bench/results/session30/orderchanged.txt"""
import sys

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session30/tools")
import sweep  # noqa: E402
from common30 import old_order  # noqa: E402
from dpl.bench.ab import changed  # noqa: E402

if __name__ == "__main__":
    seen: set[str] = set()
    for seed in [int(s) for s in sys.argv[1].split(",")]:
        cases = [c for c in sweep.all_cases(seed=seed, classes=["norm", "pointwise", "linear_epilogue"]) if c.name not in seen]
        seen.update(c.name for c in cases)
        for c in changed(cases, old_order):
            print(seed, c.name, c.cls, flush=True)
