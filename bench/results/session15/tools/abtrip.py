"""A/B of the 32 x 32 SIMT tile's full-SM trip cost on sweep programs: python3 .gpu/abtrip.py
SEED:NAME.. ; old = 2.18 us (before session 15), new = as committed (6.5)."""
import sys, os, json, time
sys.path.insert(0, "bench")
import torch, sweep
from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
import dataclasses
import dpl.transforms.tile.schedule as S
import dpl.transforms.tile.schedule_classes as SC
NEW = SC.MATMUL_TILES
OLD = tuple(dataclasses.replace(c, trip_us=2.18) if c.rows == 2 else c for c in NEW)
def compiled(tiles):
    def go(f, *xs):
        S.MATMUL_TILES = SC.MATMUL_TILES = tiles
        try:
            return dpl_compile(f, *xs, tune_cache=False)
        finally:
            S.MATMUL_TILES = SC.MATMUL_TILES = NEW
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
    for i, (label, bound) in enumerate((("old", OLD), ("new", NEW), ("old2", OLD))):
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
    json.dump(rows, open(os.path.join(out, "abtrip.json"), "w"), indent=1)
