"""Run one sweep case (dpl and eager) a few times: for ncu. python3 .gpu/s12/one.py SEED:NAME"""
import sys, torch
sys.path.insert(0, "bench")
import sweep
from dpl.driver.compile import compile as dpl_compile
seed, name = sys.argv[1].split(":")
case = {c.name: c for c in sweep.all_cases(int(seed))}[name]
fn, xs = case.build("cpu")
gs = [x.cuda() for x in xs]
fn = fn.cuda() if hasattr(fn, "cuda") else fn
c = dpl_compile(fn, *xs, tune_cache=False)
for _ in range(3):
    c(*gs)
    fn(*gs)
torch.cuda.synchronize()
