"""Session 23 (issue 13, host): which sweep matmul programs change their tile IR when a
tensor-core tile staging misaligned rows along K is no longer scaled by ELEMENT_TRIP
(schedule.MMA_ELEMENT_TRIP 1.0) and, second, a padded tile's per-block cost is 4.4 K steps
(schedule_mma.PADDED_BLOCK_STEPS) rather than 5.

    python bench/results/session23/tools/mmchanged.py [SEEDS]
Ran on 2bdf269 with a temporary constant, `MMA_ELEMENT_TRIP = ELEMENT_TRIP` in transforms/tile/
schedule.py, in place of ELEMENT_TRIP where modeled_us scales a tensor-core tile; the change lost
(call2-mmab.txt) and was not kept, so this script needs that constant back to run."""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
import torch  # noqa: E402
from dpl.bench.ab import patched  # noqa: E402
from dpl.frontend import capture  # noqa: E402
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline  # noqa: E402
from dpl.transforms.tile import schedule, schedule_mma  # noqa: E402

VARIANTS = {"e1": {"MMA_ELEMENT_TRIP": 1.0}, "e1f44": {"MMA_ELEMENT_TRIP": 1.0, "PADDED_BLOCK_STEPS": 4.4}}


def tile_ir(case, consts):
    fn, inputs = case.build("meta")
    mod = capture(fn, *inputs, dtype=torch.float32).module
    with patched(schedule, "MMA_ELEMENT_TRIP", consts.get("MMA_ELEMENT_TRIP", schedule.ELEMENT_TRIP)), \
         patched(schedule_mma, "PADDED_BLOCK_STEPS", consts.get("PADDED_BLOCK_STEPS", schedule_mma.PADDED_BLOCK_STEPS)):
        run_pipeline(mod, IR_PIPELINES["tile"])
    return str(mod)


seeds = [int(s) for s in sys.argv[1].split(",")] if len(sys.argv) > 1 else list(range(13)) + list(range(41, 49))
seen = set()
for seed in seeds:
    for c in sweep.all_cases(seed=seed):
        if c.cls not in ("matmul", "bmm", "linear_epilogue", "linear_reduce") or c.name in seen:
            continue
        seen.add(c.name)
        base = tile_ir(c, {})
        changed = [v for v, consts in VARIANTS.items() if tile_ir(c, consts) != base]
        if changed:
            print(seed, c.name, " ".join(changed), flush=True)
