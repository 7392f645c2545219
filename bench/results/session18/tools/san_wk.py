"""Run matmuls whose ragged K is staged whole once each (for compute-sanitizer), outputs
poisoned first: K 79 tt (64 x 64, B element-staged), K 101 bmm tt (shrunk to 128 threads),
K 37 bmm nt (128 x 128), K 101 nn (64 x 64: 51.7 KB of dynamic shared memory)."""
import sys, torch
from dpl.driver.compile import compile as dpl_compile
CASES = [
    ("tt 512x2741x79", lambda a, b: a.t() @ b.t(), [(79, 512), (2741, 79)]),
    ("bmm tt 21x25x1381x101", lambda a, b: torch.bmm(a.transpose(1, 2), b.transpose(1, 2)), [(21, 101, 25), (21, 1381, 101)]),
    ("bmm nt 64x97x739x37", lambda a, b: torch.bmm(a, b.transpose(1, 2)), [(64, 97, 37), (64, 739, 37)]),
    ("nn 1024x1000x101", lambda a, b: a @ b, [(1024, 101), (101, 1000)]),
]
bad = 0
for name, fn, shapes in CASES:
    xs = [torch.randn(s, device="cuda") * 2 - 0.5 for s in shapes]
    f = dpl_compile(fn, *xs, tune_cache=False)
    with torch.no_grad():
        out = f(*xs, poison=True)
        torch.cuda.synchronize()
        ref = fn(*[x.double() for x in xs])
    err = ((out.double() - ref).norm() / ref.norm()).item()
    print(f"{name}: kernels {[(k.name, k.block[0]) for k in f.kernels()]} dyn-smem {'dpl_dyn_smem' in f.cuda} rel err {err:.1e}", flush=True)
    bad += not err < 1e-5
sys.exit(1 if bad else 0)
