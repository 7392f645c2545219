"""A/B of the small padded tensor-core grid rule (schedule.small_tc_grid) on sweep programs:
python3 .gpu/s13/abrule.py SEED:NAME.. ; old = SMALL_TC_GRID 0 (the rule off), new = as committed."""
import sys, os, json
sys.path.insert(0, "bench")
import torch, sweep
from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
import dpl.transforms.tile.schedule as S
NEW = S.SMALL_TC_GRID
def compiled(grid):
    def go(f, *xs):
        S.SMALL_TC_GRID = grid
        try:
            return dpl_compile(f, *xs, tune_cache=False)
        finally:
            S.SMALL_TC_GRID = NEW
    return go
rows = []
for spec in sys.argv[1:]:
    seed, name = spec.split(":")
    (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == name]
    fn, inputs = case.build("cuda")
    r = {"case": spec}
    for i, (label, grid) in enumerate((("old", 0.0), ("new", NEW))):
        res = B.benchmark(name, fn, inputs, modes=("eager", "compile") if i == 0 else (), ceilings=False,
                          target_ms=60.0, dpl=compiled(grid))
        for m in ("eager", "compile"):
            if m in res["variants"]:
                r[m] = res["variants"][m].get("median_ms")
        d = res["variants"]["dpl"]
        r[label] = d.get("median_ms"); r[label + "_err"] = d.get("rel_err"); r[label + "_error"] = d.get("error")
    rows.append(r)
    e = r.get("eager") or 0
    f = lambda v: f"{v*1e3:7.1f}" if v else "   fail"
    print(f"{spec:42s} eager {f(e)} old {f(r['old'])} ({e/r['old'] if r['old'] else 0:4.2f}x) "
          f"new {f(r['new'])} ({e/r['new'] if r['new'] else 0:4.2f}x) new/old speed {r['old']/r['new'] if r['old'] and r['new'] else 0:4.2f} "
          f"err {r['new_err'] or 0:.1e}", flush=True)
out = os.environ.get("OUT")
if out:
    json.dump(rows, open(os.path.join(out, "abrule.json"), "w"), indent=1)
