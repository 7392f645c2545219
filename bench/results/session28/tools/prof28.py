"""Session 28 (issue 13, device): the matmul cliffs' dpl kernels and eager's under Nsight Compute,
one launch each inside cudaProfilerStart/Stop (the compiles and a warm-up run outside):

    ncu --profile-from-start off --clock-control none --section SpeedOfLight ... \
        python3 bench/results/session28/tools/prof28.py"""
import sys

import torch

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.driver.compile import compile as dc  # noqa: E402

CASES = [
    sweep.matmul_case(1472, 1201, 64, "tn"),
    sweep.matmul_case(64, 2203, 409, "tn"),
    sweep.matmul_case(509, 983, 64, "tn", batch=32),
]
for case in CASES:
    fn, inputs = case.build("cuda")
    compiled = dc(fn, *inputs, tune_cache=False)
    with torch.no_grad():
        for _ in range(3):
            compiled(*inputs)
            fn(*inputs)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push(case.name)
        torch.cuda.profiler.start()
        compiled(*inputs)
        fn(*inputs)
        torch.cuda.synchronize()
        torch.cuda.profiler.stop()
        torch.cuda.nvtx.range_pop()
    print(case.name, "done", flush=True)
