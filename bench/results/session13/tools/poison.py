"""The moved programs' new picks, outputs poisoned with NaN first, against float64 (and eager)."""
import sys
sys.path.insert(0, "bench")
import torch, sweep
from dpl.driver.compile import compile as dpl_compile
from dpl.frontend.check import rel_err
for spec in sys.argv[1:]:
    seed, name = spec.split(":")
    (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == name]
    fn, inputs = case.build("cuda")
    c = dpl_compile(fn, *inputs, tune_cache=False)
    ref = fn(*[x.double() for x in inputs])
    for _ in range(2):
        out = c(*inputs, poison=True)
        print(spec, "finite", bool(torch.isfinite(out).all()), "err", f"{rel_err(out, ref):.1e}", "eager err", f"{rel_err(fn(*inputs), ref):.1e}", flush=True)
