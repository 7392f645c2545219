"""Session 24 (issue 13, host): which sweep matmuls change their tile IR when the wgmma block
tiles (schedule_mma.TILES) include 128 x 64 at efficiency E (the tuner's pick for seed 53's
tn 223 x 1481 x 960, call 5).

    python bench/results/session24/tools/tilechanged.py E [SEEDS]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import changed, patched  # noqa: E402
from dpl.transforms.tile import schedule_mma  # noqa: E402

eff = float(sys.argv[1])
seeds = [int(s) for s in sys.argv[2].split(",")] if len(sys.argv) > 2 else [0, *range(41, 54)]
seen: set[str] = set()
for seed in seeds:
    cases = [c for c in sweep.all_cases(seed=seed, classes=["matmul", "bmm", "linear_epilogue", "linear_reduce"])
             if c.name not in seen]
    seen.update(c.name for c in cases)
    for c in changed(cases, lambda: patched(schedule_mma, "TILES", schedule_mma.TILES + ((128, 64, eff),))):
        print(seed, c.name, c.cls, flush=True)
