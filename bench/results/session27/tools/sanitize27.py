"""Session 27 (GPU): the schedules this session changes, each compiled by dpl and run once with a
poisoned output, to run under compute-sanitizer (memcheck, racecheck, synccheck):

    compute-sanitizer --report-api-errors no --tool memcheck python3 bench/results/session27/tools/sanitize27.py

column norms on 2 and 4 lanes, their columns held (RMSNorm over the 55 channels of
64 x 55 x 64 x 128, softmax over dim 1 of 379 x 55 x 227, over dim 2 of 32 x 7 x 127 x 320), a
column norm of 384 channels in one kernel (fuse-loops' max-column-reduce 512), and split-reduce's
floor (the statistics of RMSNorm over 153 x 32 x 97 for 29 rows: 36 splits), column norms of
432 and 512 channels held on 16 lanes (blocks of 512 threads), and a 1-D silu * mul of an odd
count on float4s with a tail kernel, each run by
scripts/sanitize_schedules.run, which prints its kernel count and error."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402  (compile, run once poisoned, print the error)

g = torch.Generator().manual_seed(0)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
rms_c = lambda x: x * torch.rsqrt(x.pow(2).mean(1, keepdim=True) + 1e-6)  # noqa: E731
cases = {
    "2 lanes held channel rmsnorm 64x55x64x128": (rms_c, [r(64, 55, 64, 128)]),
    "2 lanes held softmax d1 379x55x227": (lambda x: torch.softmax(x, 1), [r(379, 55, 227)]),
    "4 lanes held softmax d2 32x7x127x320": (lambda x: torch.softmax(x, 2), [r(32, 7, 127, 320)]),
    "fused channel rmsnorm 256x384x64x7": (rms_c, [r(256, 384, 64, 7)]),
    "16 lanes held softmax d1 9x512x64": (lambda x: torch.softmax(x, 1), [r(9, 512, 64)]),
    "16 lanes held channel rmsnorm 17x432x64x32": (rms_c, [r(17, 432, 64, 32)]),
    "1-D float4s and a tail silu*mul 9420839": (lambda x, y: torch.nn.functional.silu(x) * y, [r(9420839), r(9420839)]),
    "floor split rmsnorm last3 29x153x32x97": (lambda x: torch.nn.functional.rms_norm(x, (153, 32, 97), eps=1e-6),
                                              [r(29, 153, 32, 97)]),
}
run(cases)
