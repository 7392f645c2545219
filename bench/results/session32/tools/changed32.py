"""Session 32 (issue 13, host): the sweep programs whose tile IR collapse-matmul-axes changes
(against common32.old_collapse), every class:

    python bench/results/session32/tools/changed32.py 81,82 > bench/results/session32/collapsechanged.txt"""
import sys

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session32/tools")
import sweep  # noqa: E402
from common32 import old_collapse  # noqa: E402
from dpl.bench.ab import changed  # noqa: E402

if __name__ == "__main__":
    seen: set[str] = set()
    for seed in [int(s) for s in sys.argv[1].split(",")]:
        cases = [c for c in sweep.all_cases(seed=seed) if c.name not in seen]
        seen.update(c.name for c in cases)
        for c in changed(cases, old_collapse, level="tile"):
            print(seed, c.name, c.cls, flush=True)
