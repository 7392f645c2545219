"""dpl default and eager for each probe (bench harness: checked against float64, CUDA graph)."""
import sys
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu/s17")
import torch
from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
from cases import CASES
for name in sys.argv[1:] or list(CASES):
    _, fn, shapes = CASES[name]
    torch.manual_seed(0)
    inputs = [torch.randn(s, device="cuda") for s in shapes]
    r = B.benchmark(name, fn, inputs, modes=("eager",), ceilings=False, target_ms=30.0,
                    dpl=lambda f, *xs: dpl_compile(f, *xs, tune_cache=False))
    v = r["variants"]
    d, e = v["dpl"].get("median_ms"), v["eager"].get("median_ms")
    print(f"{name:28s} eager {e*1e3:8.1f} us  dpl {d*1e3 if d else 0:8.1f} us  ({e/d if d else 0:4.2f}x)  "
          f"err {v['dpl'].get('rel_err')} {v['dpl'].get('error') or ''}", flush=True)
