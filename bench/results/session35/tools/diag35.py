"""Session 35 (device): a shortk35 case's dpl program timed plainly (CUDA events around n calls
back to back, no graph, no flush) for several n, beside the harness's median, to see why Nsight
Compute's single launch (406 us) and the harness (902 us) disagree on PointNet's 1x1 conv:

    python3 bench/results/session35/tools/diag35.py CASE_REGEX"""
import re
import sys

import torch

sys.path.insert(0, "bench/results/session35/tools")
from shortk35 import CASES  # noqa: E402
from dpl.bench import harness as H  # noqa: E402
from dpl.driver.compile import compile as dpl_compile  # noqa: E402

for case in [c for c in CASES if re.search(sys.argv[1], c.name)]:
    fn, inputs = case.build("cuda")
    c = dpl_compile(fn, *inputs, tune_cache=False)
    for n in (1, 1, 3, 10, 30):
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(n):
            out = c(*inputs)
        b.record()
        torch.cuda.synchronize()
        print(f"{case.name}: {n} calls back to back: {a.elapsed_time(b) / n * 1e3:.1f} us a call", flush=True)
    launchers = list(c.kernel_launchers(*inputs))
    for kname, launch in launchers:
        torch.cuda.synchronize()
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        for _ in range(10):
            launch()
        b.record()
        torch.cuda.synchronize()
        print(f"  {kname} alone x10: {a.elapsed_time(b) / 10 * 1e3:.1f} us", flush=True)
    res = H.benchmark(case.name, fn, inputs, modes=("eager",), ceilings=False, target_ms=20.0, profile=True)
    print(H.format_table(res), flush=True)
