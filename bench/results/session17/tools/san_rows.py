"""Run row programs once each (for compute-sanitizer): block rows held in registers (128 lanes,
the last trip part past the row), few rows staged by counted, guarded fills, long rows held or
staged whole.   python3 .gpu/s17/san_rows.py"""
import sys, torch
from dpl.driver.compile import compile as dpl_compile
F = torch.nn.functional
CASES = [
    ("softmax 600x1117 held", lambda x: torch.softmax(x, -1), [(600, 1117)]),
    ("layernorm 600x1500 held", lambda x, w, b: F.layer_norm(x, (1500,), w, b), [(600, 1500), (1500,), (1500,)]),
    ("softmax 64x1117 staged, guarded fill", lambda x: torch.softmax(x, -1), [(64, 1117)]),
    ("rmsnorm 300x5000 staged float4, guarded fill", lambda x, w: F.rms_norm(x, (5000,), w), [(300, 5000), (5000,)]),
    ("softmax 600x21911 held 22", lambda x: torch.softmax(x, -1), [(600, 21911)]),
    ("softmax 1024x32000 held 32", lambda x: torch.softmax(x, -1), [(1024, 32000)]),
    ("softmax 8x16384 staged whole", lambda x: torch.softmax(x, -1), [(8, 16384)]),
]
bad = 0
for name, fn, shapes in CASES:
    xs = [torch.randn(s, device="cuda") * 3 - 1 for s in shapes]
    f = dpl_compile(fn, *xs, tune_cache=False)
    with torch.no_grad():
        out = f(*xs)
        torch.cuda.synchronize()
        ref = fn(*[x.double() for x in xs])
    err = ((out.double() - ref).norm() / ref.norm()).item()
    print(f"{name}: rel err {err:.1e}", flush=True)
    bad += err > 1e-5
sys.exit(1 if bad else 0)
