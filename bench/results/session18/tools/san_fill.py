"""Fills of 9-16 trips a thread, now counted and unrolled (for compute-sanitizer), outputs
poisoned first: a 64 x 32 slab copied element-wise by 128 threads (16 trips), a softmax row of
3001 staged by 256 lanes (12 trips, the last for 185 of them)."""
import sys, torch
from dpl.driver.compile import compile as dpl_compile
CASES = [("nt 4096x29x2503", lambda a, b: a @ b.t(), [(4096, 2503), (29, 2503)]),
         ("softmax 64x3001", lambda x: torch.softmax(x, -1), [(64, 3001)])]
bad = 0
for name, fn, shapes in CASES:
    xs = [torch.randn(s, device="cuda") * 2 - 0.5 for s in shapes]
    f = dpl_compile(fn, *xs, tune_cache=False)
    with torch.no_grad():
        out = f(*xs, poison=True)
        torch.cuda.synchronize()
        ref = fn(*[x.double() for x in xs])
    err = ((out.double() - ref).norm() / ref.norm()).item()
    print(f"{name}: rel err {err:.1e}", flush=True)
    bad += not err < 1e-5
sys.exit(1 if bad else 0)
