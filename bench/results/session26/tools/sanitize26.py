"""Session 26 (GPU): the schedules this session changes, each compiled by dpl and run once with a
poisoned output, to run under compute-sanitizer (memcheck, racecheck, synccheck):

    compute-sanitizer --report-api-errors no --tool memcheck python3 bench/results/session26/tools/sanitize26.py

merge-columns' merged columns split by split-reduce (amax over dim 0 of 1803 x 1024 x 3, mean
over dim 0 of 1735 x 181 x 5) and merged at any padding (RMSNorm over the channels of 64 x 32 x
431 x 7, call 7) and the race's picks (397 x 128 x 2741 tt on wgmma 64 x 64 split 8, 512 x 512 ->
256 on SIMT 64 x 64 split 4), each run by scripts/sanitize_schedules.run, which prints its
kernel count and error."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402  (compile, run once poisoned, print the error)

g = torch.Generator().manual_seed(0)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "merged split amax d0 1803x1024x3": (lambda x: x.amax(0), [r(1803, 1024, 3) - 2]),
    "merged split mean d0 1735x181x5": (lambda x: x.mean(0), [r(1735, 181, 5)]),
    "merged 7 columns channel rmsnorm 64x32x431x7": (lambda x: x * torch.rsqrt(x.pow(2).mean(1, keepdim=True) + 1e-6),
                                                     [r(64, 32, 431, 7)]),
    "race tc matmul_tt 397x128x2741": (lambda a, b: a.T @ b.T, [r(2741, 397), r(128, 2741)]),
    "race simt linear 512x512to256": (lambda x, w, b: torch.nn.functional.linear(x, w, b), [r(512, 512), r(256, 512), r(256)]),
}
run(cases)
