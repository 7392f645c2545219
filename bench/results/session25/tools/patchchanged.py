"""Session 25 (issue 13, host): which sweep matmuls change their tile IR when one constant of the
tile passes is patched (bench.ab.changed); wavechanged.txt and repackchanged.txt came from

    python bench/results/session25/tools/patchchanged.py schedule_mma.WAVE_MARGIN inf 0,41,...,57
    python bench/results/session25/tools/patchchanged.py schedule.REPACK_MARGIN 1.0 0,41,...,59

(the wave pick against the old model's; a repack margin of 1.0 against 0.89)."""
import importlib
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import changed, patched  # noqa: E402

where, value, seeds = sys.argv[1], float(sys.argv[2]), sys.argv[3]
module, name = where.rsplit(".", 1)
owner = importlib.import_module(f"dpl.transforms.tile.{module}")
seen: set[str] = set()
for seed in [int(s) for s in seeds.split(",")]:
    cases = [c for c in sweep.all_cases(seed=seed, classes=["matmul", "bmm", "linear_epilogue", "linear_reduce"])
             if c.name not in seen]
    seen.update(c.name for c in cases)
    for c in changed(cases, lambda: patched(owner, name, value)):
        print(seed, c.name, c.cls, flush=True)
