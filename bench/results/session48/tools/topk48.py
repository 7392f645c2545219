"""topk radix select on the device: compile, check against torch.topk, time whole and per kernel."""
import sys, time, torch
from dpl.driver.compile import compile as dc
shape = (16, 1310720); k = 100
x = torch.randn(*shape, generator=torch.Generator().manual_seed(0)).cuda()
t = time.time()
c = dc(lambda x: x.topk(k), x)
print("compile s %.1f kernels %d" % (time.time() - t, c.num_kernels), flush=True)
v, i = c(x)
rv, ri = torch.topk(x, k)
print("equal", torch.equal(v, rv), torch.equal(i, ri), flush=True)
def tm(f, n=20):
    f(); torch.cuda.synchronize(); t = time.perf_counter()
    for _ in range(n): f()
    torch.cuda.synchronize(); return (time.perf_counter() - t) / n * 1e3
print("dpl ms %.3f eager ms %.3f" % (tm(lambda: c(x)), tm(lambda: torch.topk(x, k))), flush=True)
calls = c.kernel_launchers(x)
rows = []
for name, f in calls:
    rows.append((tm(f, 10), name[:70]))
for ms, name in rows: print("%.4f %s" % (ms, name))
