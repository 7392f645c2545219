"""Sessions 25-26 (issue 13, host): which sweep programs change their tile IR when one constant of
the tile passes is patched (bench.ab.changed); the lists the A/B calls timed came from

    python bench/results/session25/tools/patchchanged.py schedule_mma.WAVE_MARGIN inf 0,41,...,57
    python bench/results/session25/tools/patchchanged.py schedule.REPACK_MARGIN 1.0 0,41,...,59
    python bench/results/session25/tools/patchchanged.py schedule.RACE_MARGIN None 0,41,...,61
    python bench/results/session25/tools/patchchanged.py merge_columns.SPLIT_ROWS 10**12 0,41,...,130 \
        reduce,softmax,norm,linear_reduce
    python bench/results/session25/tools/patchchanged.py merge_columns.WASTE_MIN 0.0 0,41,...,73 \
        reduce,softmax,norm

(session 25's wavechanged.txt and repackchanged.txt; session 26's racechanged.txt and
racechanged-heldout.txt, mergechanged.txt, wastechanged.txt). VALUE is a Python expression; the
classes default to the matmul ones."""
import importlib
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import changed, patched  # noqa: E402

MATMULS = "matmul,bmm,linear_epilogue,linear_reduce"
where, value, seeds = sys.argv[1], eval(sys.argv[2], {"inf": float("inf")}), sys.argv[3]
classes = (sys.argv[4] if len(sys.argv) > 4 else MATMULS).split(",")
module, name = where.rsplit(".", 1)
owner = importlib.import_module(f"dpl.transforms.tile.{module}")
seen: set[str] = set()
for seed in [int(s) for s in seeds.split(",")]:
    cases = [c for c in sweep.all_cases(seed=seed, classes=classes) if c.name not in seen]
    seen.update(c.name for c in cases)
    for c in changed(cases, lambda: patched(owner, name, value)):
        print(seed, c.name, c.cls, flush=True)
