"""Session 26 (issue 13, host): which sweep matmuls change their tile IR when SIMT and the tensor
cores race at their wave models (schedule.RACE_MARGIN) against not (None: the old models decide).

    python bench/results/session26/tools/racechanged.py 0,41,...,61 > racechanged.txt
"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import changed, patched  # noqa: E402
from dpl.transforms.tile import schedule  # noqa: E402

seen: set[str] = set()
for seed in [int(s) for s in sys.argv[1].split(",")]:
    cases = [c for c in sweep.all_cases(seed=seed, classes=["matmul", "bmm", "linear_epilogue", "linear_reduce"])
             if c.name not in seen]
    seen.update(c.name for c in cases)
    for c in changed(cases, lambda: patched(schedule, "RACE_MARGIN", None)):
        print(seed, c.name, c.cls, flush=True)
