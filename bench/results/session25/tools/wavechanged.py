"""Session 25 (issue 13, host): which sweep matmuls change their tile IR under the wave model's
tile pick (schedule_mma.wave_pick), against the old model's pick (WAVE_MARGIN infinite).

    python bench/results/session25/tools/wavechanged.py SEEDS   # e.g. 0,41,42"""
import math
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import changed, patched  # noqa: E402
from dpl.transforms.tile import schedule_mma  # noqa: E402

seen: set[str] = set()
for seed in [int(s) for s in sys.argv[1].split(",")]:
    cases = [c for c in sweep.all_cases(seed=seed, classes=["matmul", "bmm", "linear_epilogue", "linear_reduce"])
             if c.name not in seen]
    seen.update(c.name for c in cases)
    for c in changed(cases, lambda: patched(schedule_mma, "WAVE_MARGIN", math.inf)):
        print(seed, c.name, c.cls, flush=True)
