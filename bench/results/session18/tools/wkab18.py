"""whole-k A/B: the matmul sweep cases whose CUDA whole-k changes (wkchanged.py), old (K padded
to k-tile 32, chunked) against new (a ragged K <= 128 left whole where the grid fills the SMs),
dpl's own schedule each; eager alongside.  argv: file of 'seed name' lines"""
import sys
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu/s18")
from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
from cases18 import get
import wk18

lines = [l.split()[:2] for l in open(sys.argv[1]) if l.strip() and l[0].isdigit()]
LABELS = ("old", "new", "newu")
print(f"{'case':34s} {'eager':>7s} " + " ".join(f"{l:>13s}" for l in LABELS) + "  new/old newu/old")
for seed, name in lines:
    fn, inputs = get(int(seed), name).build("cuda")
    t, cells, e = {}, [], None
    for i, label in enumerate(LABELS):
        getattr(wk18, label)()
        r = B.benchmark(name, fn, inputs, modes=("eager",) if i == 0 else (), ceilings=False, target_ms=30.0,
                        dpl=lambda f, *xs: dpl_compile(f, *xs, tune_cache=False))
        if i == 0:
            e = r["variants"]["eager"].get("median_ms")
        d = r["variants"]["dpl"]
        t[label] = m = d.get("median_ms")
        ks = "+".join(f"{k['name'].replace('k_', '')}{tuple(k['grid'])}x{k['block'][0]}" for k in r.get("kernels", []))
        print(f"   {name} {label}: {m*1e3 if m else 0:.1f} us err {d.get('rel_err')} {d.get('error') or ''} {ks}", flush=True)
        cells.append(f"{m*1e3:6.1f}({e/m:4.2f})" if m else "ERR")
    wk18.new()
    r = [t["old"] / t[x] if t.get("old") and t.get(x) else 0 for x in ("new", "newu")]
    print(f"{name:34s} {e*1e3:7.1f} " + " ".join(f"{c:>13s}" for c in cells) + f"  {r[0]:5.2f}x {r[1]:5.2f}x", flush=True)
