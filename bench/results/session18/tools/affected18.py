"""Local: which matmul cases (seed 0's matmul classes + the probes) get a kernel with min_blocks."""
import sys
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu/s18")
import sweep
from dpl.driver.compile import compile as dpl_compile
from dpl.dialects import kernel as K
from cases18 import PROBES, get

cases = [(0, c.name) for c in sweep.all_cases(seed=0) if c.cls in ("matmul", "bmm", "linear_epilogue", "linear_reduce")]
cases += [p for p in PROBES if p not in cases]
for seed, name in cases:
    fn, inputs = get(seed, name).build("meta")
    import torch
    fn, inputs = get(seed, name).build("cpu")
    c = dpl_compile(fn, *inputs, tune_cache=False)
    ks = [(f.sym_name.data, f.num_threads, f.min_blocks.data) for f in c.module.walk()
          if isinstance(f, K.KernelFuncOp) and f.min_blocks is not None]
    print(seed, name, ks, flush=True)
