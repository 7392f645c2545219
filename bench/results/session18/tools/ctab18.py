"""column-trips A/B: old (column-trips=0: 8 lanes beside a warp of columns) against new (64)
on the sweep cases whose tile IR the rule changes (changed18.py) and a few long columns more;
eager alongside (harness: CUDA graph replays, inputs rotated past L2, checked against float64)."""
import sys
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu/s18")
import torch
from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.tile import schedule_classes as SC
from cases18 import get

NEW = SC.PIPELINES["row reduction"]
OLD = NEW.replace("column-trips=64", "column-trips=0")
assert OLD != NEW
SWEEP = [(0, "sum_d1_64x4099x1021"), (0, "mean_d1_32x1024x8192"), (0, "softmax_d1_16x1023x1025"),
         (23, "mean_d0_727x128x512"), (27, "softmax_d0_896x28345"), (28, "sum_d1_512x1231x87"),
         (2, "softmax_d0_3303x27015"), (5, "sum_d0_1024x256x512"), (9, "softmax_d1_1847x1664x32"),
         (9, "amax_d0_1285x256x739")]
MORE = [("var_d1_128x2048x333", lambda x: x.var(1), (128, 2048, 333)),
        ("mean_d1_8x8192x4096", lambda x: x.mean(1), (8, 8192, 4096)),
        ("mean_d2_16x64x3000x33", lambda x: x.mean(2), (16, 64, 3000, 33)),
        ("sum_d1_64x1500x1021", lambda x: x.sum(1), (64, 1500, 1021)),
        ("sum_d1_64x700x1021", lambda x: x.sum(1), (64, 700, 1021)),
        ("amax_d1_32x2500x333", lambda x: x.amax(1), (32, 2500, 333)),
        ("logsumexp_d1_64x1800x257", lambda x: torch.logsumexp(x, 1), (64, 1800, 257))]


def cases():
    for seed, name in SWEEP:
        fn, inputs = get(seed, name).build("cuda")
        yield name, fn, inputs
    for name, fn, shape in MORE:
        torch.manual_seed(0)
        yield name, fn, [torch.randn(shape, device="cuda")]


print(f"{'case':30s} {'eager':>8s} {'old':>14s} {'new':>14s}  new/old")
for name, fn, inputs in cases():
    t, cells, e = {}, [], None
    for i, (label, pipe) in enumerate((("old", OLD), ("new", NEW))):
        SC.PIPELINES["row reduction"] = pipe
        r = B.benchmark(name, fn, inputs, modes=("eager",) if i == 0 else (), ceilings=False, target_ms=30.0,
                        dpl=lambda f, *xs: dpl_compile(f, *xs, tune_cache=False))
        if i == 0:
            e = r["variants"]["eager"].get("median_ms")
        d = r["variants"]["dpl"]
        t[label] = m = d.get("median_ms")
        ks = "+".join(f"{k['name'].replace('k_', '')}{tuple(k['grid'])}x{k['block'][0]}" for k in r.get("kernels", []))
        print(f"   {name} {label}: {m*1e3 if m else 0:.1f} us err {d.get('rel_err')} {d.get('error') or ''} {ks}", flush=True)
        cells.append(f"{m*1e3:7.1f}({e/m:4.2f})" if m else "ERR")
    SC.PIPELINES["row reduction"] = NEW
    ratio = t["old"] / t["new"] if t.get("old") and t.get("new") else 0
    print(f"{name:30s} {e*1e3:8.1f} {cells[0]:>14s} {cells[1]:>14s}  {ratio:5.2f}x", flush=True)
    del inputs
    torch.cuda.empty_cache()
