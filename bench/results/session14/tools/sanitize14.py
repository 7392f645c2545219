"""Session 14's packed-row layouts (2, 4, 16 lanes and a warp a row), compiled by dpl and run once with a
poisoned output, to run under compute-sanitizer (memcheck, racecheck, synccheck)."""
import torch
from dpl.driver.compile import compile as dc
F = torch.nn.functional
g = torch.Generator().manual_seed(0)
r = lambda *s: torch.randn(*s, generator=g)
cases = {
    "softmax 300000x5 (2 lanes)": (lambda x: x.softmax(-1), [r(300000, 5)]),
    "rmsnorm 300001x5 (2 lanes, last block masked)": (lambda x, w: F.rms_norm(x, (5,), w), [r(300001, 5), r(5)]),
    "softmax 200000x5 (4 lanes)": (lambda x: x.softmax(-1), [r(200000, 5)]),
    "layernorm 150000x9 (4 lanes)": (lambda x: F.layer_norm(x, (9,)), [r(150000, 9)]),
    "softmax 20001x37 (16 lanes, last block masked)": (lambda x: x.softmax(-1), [r(20001, 37)]),
    "softmax 4099x53 (a warp)": (lambda x: x.softmax(-1), [r(4099, 53)]),
}
for name, (fn, xs) in cases.items():
    c = dc(fn, *xs)
    out = c(*[x.cuda() for x in xs], poison=True)
    ref = fn(*[x.cuda().double() for x in xs])
    err = float((out.double() - ref).norm() / ref.norm())
    torch.cuda.synchronize()
    lanes = [l for l in c.host.source.splitlines() if "int lane = tid %" in l] if hasattr(c, "host") else []
    print(f"{name}: {c.num_kernels} kernels, err {err:.1e}, {lanes}", flush=True)
