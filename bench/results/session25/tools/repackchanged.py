"""Session 25 (issue 13, host): which sweep matmuls change their tile IR when the schedule takes
copied-aligned operands (repack-operands) at a modeled share of up to 1.0 of the best schedule
without them (schedule.REPACK_MARGIN 0.89 -> 1.0).

    python bench/results/session25/tools/repackchanged.py SEEDS   # e.g. 0,41,42"""
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
    for c in changed(cases, lambda: patched(schedule, "REPACK_MARGIN", 1.0)):
        print(seed, c.name, c.cls, flush=True)
