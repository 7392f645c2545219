"""Run column reductions with column-trips lanes once each (for compute-sanitizer), outputs
poisoned first: 32 lanes over an odd column (1031: 33 trips, the last part past it) beside a
masked second warp of columns (45), 16 lanes for a variance (611), 32 for a softmax over dim 0."""
import sys, torch
from dpl.driver.compile import compile as dpl_compile
CASES = [
    ("sum d1 300x1031x45 (32 lanes)", lambda x: x.sum(1), (300, 1031, 45)),
    ("var d1 300x611x64 (16 lanes)", lambda x: x.var(1), (300, 611, 64)),
    ("softmax d0 2049x20000 (32 lanes stats)", lambda x: torch.softmax(x, 0), (2049, 20000)),
]
bad = 0
for name, fn, shape in CASES:
    x = torch.randn(shape, device="cuda") * 3 - 1
    f = dpl_compile(fn, x, tune_cache=False)
    lanes = [k.block[0] for k in f.kernels()]
    with torch.no_grad():
        out = f(x, poison=True)
        torch.cuda.synchronize()
        ref = fn(x.double())
    err = ((out.double() - ref).norm() / ref.norm()).item()
    print(f"{name}: blocks {lanes} rel err {err:.1e}", flush=True)
    bad += not err < 1e-5
sys.exit(1 if bad else 0)
