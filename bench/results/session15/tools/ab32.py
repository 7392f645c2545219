"""A/B of SMALL_32_GRID (32 x 32 SIMT tiles only where the 64 x 64 grid holds at most a quarter
of the SMs) on sweep programs: python3 .gpu/ab32.py SEED:NAME.. ; old = the bound off (1e9: the
tile tried wherever the 64 x 64 grid has fewer blocks than SMs), new = as committed."""
import sys, os, json, time
sys.path.insert(0, "bench")
import torch, sweep
from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
import dpl.transforms.tile.schedule as S
NEW = S.SMALL_32_GRID
def compiled(bound):
    def go(f, *xs):
        S.SMALL_32_GRID = bound
        try:
            return dpl_compile(f, *xs, tune_cache=False)
        finally:
            S.SMALL_32_GRID = NEW
    return go
rows = []
t_end = time.time() + float(os.environ.get("BUDGET_S", 300))
for spec in sys.argv[1:]:
    if time.time() > t_end:
        print(f"# budget: stopped before {spec}", flush=True); break
    seed, name = spec.split(":")
    (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == name]
    fn, inputs = case.build("cuda")
    r = {"case": spec}
    for i, (label, bound) in enumerate((("old", 1e9), ("new", NEW), ("old2", 1e9))):
        res = B.benchmark(name, fn, inputs, modes=("eager",) if i == 0 else (), ceilings=False,
                          target_ms=40.0, dpl=compiled(bound))
        if "eager" in res["variants"]:
            r["eager"] = res["variants"]["eager"].get("median_ms")
        d = res["variants"]["dpl"]
        r[label] = d.get("median_ms"); r[label + "_err"] = d.get("rel_err"); r[label + "_error"] = d.get("error")
    rows.append(r)
    e = r.get("eager") or 0
    old = min(v for v in (r["old"], r["old2"]) if v) if (r["old"] or r["old2"]) else None
    f = lambda v: f"{v*1e3:7.1f}" if v else "   fail"
    print(f"{spec:44s} eager {f(e)} old {f(r['old'])}/{f(r['old2'])} ({e/old if old else 0:4.2f}x) "
          f"new {f(r['new'])} ({e/r['new'] if r['new'] else 0:4.2f}x) new/old speed {old/r['new'] if old and r['new'] else 0:4.2f} "
          f"err {r['new_err'] or 0:.1e} {r['new_error'] or ''}", flush=True)
out = os.environ.get("OUT")
if out:
    json.dump(rows, open(os.path.join(out, "ab32.json"), "w"), indent=1)
