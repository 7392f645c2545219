"""Session 21 (issue 13, host): which sweep programs with an M or N of 16..31 (seeds 0-12, 27,
41) change their schedule when tensor-core candidates are allowed from 16 (schedule_mma.MIN_MN)
rather than 32: the kernels' schedule strings at tile level, both ways.

    python bench/results/session21/tools/smallmchanged.py [MIN_MN_BEFORE]"""
import re
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
import torch  # noqa: E402
from dpl.frontend import capture  # noqa: E402
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline  # noqa: E402
from dpl.transforms.tile import schedule_mma  # noqa: E402
from dpl.bench.ab import patched  # noqa: E402

BEFORE = int(sys.argv[1]) if len(sys.argv) > 1 else 32


def sizes(case):
    m = re.search(r"(\d+)x(\d+)x(\d+)$", case.name)
    if case.cls in ("matmul", "bmm"):
        return tuple(map(int, m.groups()))
    m = re.search(r"(\d+)x(\d+)to(\d+)", case.name)
    s, k, n = map(int, m.groups())
    return s, n, k


def picks(case):
    fn, inputs = case.build("meta")
    mod = capture(fn, *inputs, dtype=torch.float32).module
    run_pipeline(mod, IR_PIPELINES["tile"])
    return [str(op.attributes.get("tile.schedule")) for op in mod.walk() if "tile.schedule" in op.attributes]


for seed in list(range(13)) + [27, 41]:
    for c in sweep.all_cases(seed=seed):
        if c.cls not in ("matmul", "bmm", "linear_epilogue", "linear_reduce"):
            continue
        m, n, _ = sizes(c)
        if min(m, n) >= BEFORE or min(m, n) < schedule_mma.MIN_MN:
            continue
        with patched(schedule_mma, "MIN_MN", BEFORE):
            old = picks(c)
        new = picks(c)
        if old != new:
            print(seed, c.name, "CHANGED", [p for p in new if p not in old], flush=True)
