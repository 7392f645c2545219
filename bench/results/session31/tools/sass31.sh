#!/usr/bin/env bash
# Session 31 lead (device): where ptxas puts an RMSNorm's weight loads (rows of 512, a warp a row,
# x held): before the row's reduction (their latency overlaps x's) or after it. Prints the SASS
# order of global loads, shuffles and stores of the kernel dpl prints for it.
python3 - <<'PY' > /tmp/rms512.cu
import sys, torch
from torch import nn
from dpl.frontend import capture
from dpl.driver.compile import lower
from dpl.driver.tuned import Tuning
from dpl.backend.cuda_printer import print_cuda
with torch.device("meta"):
    m = nn.RMSNorm((512,), eps=1e-6)
prog = capture(m, torch.empty(1984, 512, device="meta"), dtype=torch.float32)
print(print_cuda(lower(prog, tuning=Tuning.default(False))[0]))
PY
nvcc -arch=sm_90 -cubin -o /tmp/rms512.cubin /tmp/rms512.cu && cuobjdump -sass /tmp/rms512.cubin | grep -oE "(LDG|SHFL|STG)[A-Z0-9.]*" | uniq -c
