"""Session 31 (issue 13, host): the sweep programs whose IR one of the session's changes alters
(against common31's tree without it). `merge`: the norms over several dims and the reductions
over two (classes norm and reduce: the only rows collapse-loops merges), tile IR, against
old_merge; `tail`: the pointwise programs whose element count 4 does not divide, kernel IR,
against old_tail:

    python bench/results/session31/tools/changed31.py merge 62,63,...  > bench/results/session31/mergechanged.txt
    python bench/results/session31/tools/changed31.py tail 62,63,...  > bench/results/session31/tailchanged.txt"""
import math
import re
import sys

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session31/tools")
import sweep  # noqa: E402
from common31 import old_merge, old_tail  # noqa: E402
from dpl.bench.ab import changed  # noqa: E402

WHICH = {  # variant, level, classes, which of their cases
    "merge": (old_merge, "tile", ["norm", "reduce"], lambda c: re.search(r"_last[2-9]_|_d\d\d", c.name)),
    "tail": (old_tail, "kernel", ["pointwise"], lambda c: math.prod(c.shapes[0]) % 4),
}

if __name__ == "__main__":
    variant, level, classes, keep = WHICH[sys.argv[1]]
    seen: set[str] = set()
    for seed in [int(s) for s in sys.argv[2].split(",")]:
        cases = [c for c in sweep.all_cases(seed=seed, classes=classes) if c.name not in seen and keep(c)]
        seen.update(c.name for c in cases)
        for c in changed(cases, variant, level=level):
            print(seed, c.name, c.cls, flush=True)
