"""Per-kernel GPU times of dpl and eager's kernels for sweep cases: python .gpu/prof.py "seed:name ..." """
import sys, os, torch
sys.path.insert(0, "bench")
import sweep
from dpl.bench import harness as B
from torch.profiler import profile, ProfilerActivity

def eager_kernels(fn, inputs):
    with torch.no_grad():
        for _ in range(3):
            fn(*inputs)
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as p:
            for _ in range(5):
                fn(*inputs)
            torch.cuda.synchronize()
    rows = {}
    for e in p.key_averages():
        if e.device_type.name == "CUDA" or getattr(e, "self_device_time_total", 0):
            t = getattr(e, "self_device_time_total", 0) or getattr(e, "self_cuda_time_total", 0)
            if t:
                rows[e.key] = (t / 5, e.count // 5)
    return rows

for spec in sys.argv[1].split():
    seed, name = spec.split(":")
    (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == name]
    fn, inputs = case.build("cpu")
    res = B.benchmark(name, fn, inputs, modes="eager", profile=True, target_ms=60.0)
    v = res["variants"]
    print(f"== {spec}: dpl {v['dpl'].get('median_ms', float('nan'))*1e3:.1f} us, eager {v['eager'].get('median_ms', float('nan'))*1e3:.1f} us, err {v['dpl'].get('error','')}")
    for k in res.get("profile", []):
        print(f"   dpl  {k['name']:28s} grid {k.get('grid')} block {k.get('block')} {k.get('median_ms', float('nan'))*1e3:7.1f} us")
    fg = fn.cuda() if isinstance(fn, torch.nn.Module) else fn
    ig = tuple(x.cuda() for x in inputs)
    for kname, (us, n) in eager_kernels(fg, ig).items():
        print(f"   eager {kname[:110]:110s} x{n} {us:7.1f} us")
    sys.stdout.flush()
