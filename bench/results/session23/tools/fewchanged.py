"""Session 23 (issue 13, host): which sweep programs change their tile IR when few rows passed over
more than once take the lanes that pass over each row in at most schedule.FEW_ROW_TRIPS trips
(against 256 lanes always, FEW_ROW_TRIPS = 10**9).

    python bench/results/session23/tools/fewchanged.py [SEEDS]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import changed, patched  # noqa: E402
from dpl.transforms.tile import schedule  # noqa: E402

seeds = [int(s) for s in sys.argv[1].split(",")] if len(sys.argv) > 1 else list(range(50))
seen: set[str] = set()
for seed in seeds:
    cases = [c for c in sweep.all_cases(seed=seed, classes=["reduce", "softmax", "norm", "linear_reduce"])
             if c.name not in seen]
    seen.update(c.name for c in cases)
    for c in changed(cases, lambda: patched(schedule, "FEW_ROW_TRIPS", 10**9)):
        print(seed, c.name, "CHANGED", flush=True)
