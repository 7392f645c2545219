"""Session 28 (GPU): the schedules this session adds or left unchecked, each compiled by dpl and
run once with a poisoned output, to run under compute-sanitizer (memcheck, racecheck, synccheck):

    bash bench/results/session28/tools/sanitize28.sh PREFIX TIMEOUT

packed rows of 8 on 2 lanes and of 16 on 4 lanes, their output a float4 a lane through the
store guard of the rows rounded past the last (softmax over the last 8 of 300007 x 8, over the
last 16 of 150001 x 16), rows of 32 on 8 lanes so (LayerNorm over 32 of 40001 x 32), and
session 27's 32-lane (1024-thread) column softmax (dim 1 of 16 x 1023 x 1025), each run by
scripts/sanitize_schedules.run, which prints its kernel count and error."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402  (compile, run once poisoned, print the error)

g = torch.Generator().manual_seed(0)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
cases = {
    "2 lanes float4 guarded softmax 300007x8": (lambda x: torch.softmax(x, -1), [r(300007, 8)]),
    "4 lanes float4 guarded softmax 150001x16": (lambda x: torch.softmax(x, -1), [r(150001, 16)]),
    "8 lanes float4 guarded layernorm 40001x32": (lambda x: torch.nn.functional.layer_norm(x, (32,)), [r(40001, 32)]),
    "32 lanes column softmax d1 16x1023x1025": (lambda x: torch.softmax(x, 1), [r(16, 1023, 1025)]),
}
run(cases)
