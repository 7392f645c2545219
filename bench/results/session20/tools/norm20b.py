"""Session 20 (call 9): norms of many rows too long for shared memory, which UNSTAGED_ROW_FACTOR
now splits too (the tree's pick: statistics split off) against one kernel a row (split_rows
patched to say no), eager and torch.compile; medians in us (CUDA graphs, inputs rotated past
L2), errors against float64.

    python3 bench/results/session20/tools/norm20b.py"""
import sys
import torch
sys.path.insert(0, "bench/results/session20/tools")
from norm20 import LN, rel  # noqa: E402
from dpl.bench.ab import patched
from dpl.bench.harness import gpu_time
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.tile import schedule

CASES = [((1024, 256, 256), 2, False), ((1024, 256, 256), 2, True), ((2048, 64, 1024), 2, False),
         ((4096, 128, 512), 2, True), ((300, 80000), 1, False)]

print(f"{'case':32} {'eager':>8} {'compile':>8} {'split':>8} {'one':>8} {'err spl':>8} {'err one':>8}")
for shape, nd, rms in CASES:
    ns = shape[-nd:]
    mod = LN(ns, rms)
    def mk(s):
        g = torch.Generator(device="cuda").manual_seed(s)
        return [torch.randn(shape, device="cuda", generator=g), torch.randn(ns, device="cuda", generator=g),
                torch.randn(ns, device="cuda", generator=g)]
    xs = mk(0)
    ref = mod(*(x.double() for x in xs))
    sets = [mk(s + 1) for s in range(max(1, min(4, int(400e6 // (4 * xs[0].numel())))))]
    comp = torch.compile(mod)
    comp(*xs)
    t = [gpu_time(mod, sets)["median_ms"] * 1e3, gpu_time(comp, sets)["median_ms"] * 1e3]
    errs = []
    for one in (False, True):
        if one:
            with patched(schedule, "split_rows", lambda k, sms, smem=0: (False, "")):
                c = dpl_compile(mod, *xs, tune_cache=False)
        else:
            c = dpl_compile(mod, *xs, tune_cache=False)
        errs.append(rel(c(*xs, poison=True), ref))
        t.append(gpu_time(c, sets)["median_ms"] * 1e3)
        del c
    name = f"{'rms' if rms else 'ln'} {'x'.join(map(str, shape))} last{nd}"
    print(f"{name:32} {t[0]:8.1f} {t[1]:8.1f} {t[2]:8.1f} {t[3]:8.1f} {errs[0]:8.1e} {errs[1]:8.1e}", flush=True)
    del sets
    torch.cuda.empty_cache()
