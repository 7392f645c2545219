"""Run one sweep program's dpl kernels and eager once each between cudaProfilerStart/Stop (for
ncu --profile-from-start off).  argv: seed name"""
import sys
sys.path.insert(0, "bench")
import copy
import torch
import sweep
from dpl.driver.compile import compile as dpl_compile

case = next(c for c in sweep.all_cases(seed=int(sys.argv[1])) if c.name == sys.argv[2])
fn, inputs = case.build("cuda")
c = dpl_compile(copy.deepcopy(fn).cpu(), *[x.cpu() for x in inputs], tune_cache=False)
with torch.no_grad():
    for _ in range(3):
        c(*inputs); fn(*inputs)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    c(*inputs); fn(*inputs)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
