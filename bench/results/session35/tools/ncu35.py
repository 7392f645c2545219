"""Session 35 (device): run one shortk35 case with dpl's default schedule a few times, for Nsight
Compute to profile its kernels:

    ncu --clock-control none -k regex:k_ -c 2 --section SpeedOfLight ... \\
        python3 bench/results/session35/tools/ncu35.py CASE_REGEX"""
import re
import sys

import torch

sys.path.insert(0, "bench/results/session35/tools")
from shortk35 import CASES  # noqa: E402
from dpl.driver.compile import compile as dpl_compile  # noqa: E402

case = next(c for c in CASES if re.search(sys.argv[1], c.name))
fn, inputs = case.build("cuda")
c = dpl_compile(fn, *inputs, tune_cache=False)
for _ in range(3):
    c(*inputs)
torch.cuda.synchronize()
