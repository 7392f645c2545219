"""Session 23 (issue 13, host): which sweep programs change their tile IR when merge-columns runs
a narrow ragged column axis and the axis before it as one (against never merging,
merge_columns.WASTE_MIN = 1).

    python bench/results/session23/tools/mergechanged.py [SEEDS]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
import torch  # noqa: E402
from dpl.bench.ab import patched  # noqa: E402
from dpl.frontend import capture  # noqa: E402
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline  # noqa: E402
from dpl.transforms.tile import merge_columns  # noqa: E402


def tile_ir(case):
    fn, inputs = case.build("meta")
    mod = capture(fn, *inputs, dtype=torch.float32).module
    run_pipeline(mod, IR_PIPELINES["tile"])
    return str(mod).replace("merge-columns,", "")


seeds = [int(s) for s in sys.argv[1].split(",")] if len(sys.argv) > 1 else list(range(49))
seen = set()
for seed in seeds:
    for c in sweep.all_cases(seed=seed):
        if c.cls not in ("reduce", "softmax", "norm", "linear_reduce") or c.name in seen:
            continue
        seen.add(c.name)
        with patched(merge_columns, "WASTE_MIN", 1.0):
            old = tile_ir(c)
        if old != tile_ir(c):
            print(seed, c.name, "CHANGED", flush=True)
