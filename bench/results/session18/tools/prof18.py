"""Run one probe's dpl program and eager once each between cudaProfilerStart/Stop (for ncu
--profile-from-start off).  argv: seed name"""
import sys
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu/s18")
import torch
from dpl.driver.compile import compile as dpl_compile
from cases18 import get

case = get(int(sys.argv[1]), sys.argv[2])
fn, inputs = case.build("cuda")
c = dpl_compile(fn, *[x.cpu() for x in inputs], tune_cache=False)
with torch.no_grad():
    for _ in range(3):
        c(*inputs); fn(*inputs)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStart()
    c(*inputs); fn(*inputs)
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
