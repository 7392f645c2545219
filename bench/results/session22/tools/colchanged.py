"""Session 22 (issue 13, host): which sweep programs change their tile IR when a one-pass column
reduction takes the fewest lanes that fill the GPU (blockify_launch.column_lanes) rather than
always 8 lanes beside one warp of columns.

    python bench/results/session22/tools/colchanged.py [SEEDS]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
import torch  # noqa: E402
from dpl.bench.ab import patched  # noqa: E402
from dpl.frontend import capture  # noqa: E402
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline  # noqa: E402
from dpl.transforms.tile import blockify_launch  # noqa: E402


def tile_ir(case):
    fn, inputs = case.build("meta")
    mod = capture(fn, *inputs, dtype=torch.float32).module
    run_pipeline(mod, IR_PIPELINES["tile"])
    return str(mod)


seeds = [int(s) for s in sys.argv[1].split(",")] if len(sys.argv) > 1 else list(range(13)) + [27, 41, 43, 44, 45]
seen = set()
for seed in seeds:
    for c in sweep.all_cases(seed=seed):
        if c.cls not in ("reduce", "softmax", "norm", "linear_reduce") or c.name in seen:
            continue
        seen.add(c.name)
        with patched(blockify_launch, "COLUMN_FILL_WAVES", 10**9):
            old = tile_ir(c)
        if old != tile_ir(c):
            print(seed, c.name, "CHANGED", flush=True)
