"""A/B of the short-K matmul model on sweep programs: python3 .gpu/abk.py SEED:NAME|mm:M:N:K:T[:B] ..
old = before (MIN_K 128, no per-block steps, 32 x 32 skipped wherever tensor cores were tried),
new = as committed. Each timed old, new, old again in one process, eager once."""
import sys, os, json, time
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu")
import torch, sweep
from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
import dpl.transforms.tile.schedule_mma as SM
import dpl.transforms.tile.schedule as S
import dpl.transforms.tile.schedule_classes as SC
import dataclasses
from shortk import case_of
NEW = dict(MIN_K=SM.MIN_K, FULL=dict(SM.FULL_BLOCK_STEPS), BT=SC.MATMUL_TILES, WIN=S.tensor_cores_win)
OLD = dict(MIN_K=128, FULL={k: 0.0 for k in SM.FULL_BLOCK_STEPS}, BT=tuple(dataclasses.replace(c, block_trips=0.0) for c in SC.MATMUL_TILES),
           WIN=lambda tried, sms, smem: any(isinstance(t[4], SM.MmaChoice) for t in tried))
def setm(m):
    SM.MIN_K = m["MIN_K"]; SM.FULL_BLOCK_STEPS = m["FULL"]
    S.MATMUL_TILES = SC.MATMUL_TILES = m["BT"]; S.tensor_cores_win = m["WIN"]
def compiled(m):
    def go(f, *xs):
        setm(m)
        try:
            return dpl_compile(f, *xs, tune_cache=False)
        finally:
            setm(NEW)
    return go
rows = []
t_end = time.time() + float(os.environ.get("BUDGET_S", 300))
for spec in sys.argv[1:]:
    if time.time() > t_end:
        print(f"# budget: stopped before {spec}", flush=True); break
    if spec.startswith("suite:"):
        import suite
        (sc,) = [c for c in suite.CASES if c.name == spec[6:]]
        fn, inputs = sc.make()
        case = type("C", (), {"name": sc.name})
    else:
        case = case_of(spec)
        fn, inputs = case.build("cuda")
    r = {"case": spec}
    for i, (label, m) in enumerate((("old", OLD), ("new", NEW), ("old2", OLD))):
        try:
            res = B.benchmark(case.name, fn, inputs, modes=("eager",) if i == 0 else (), ceilings=False,
                              target_ms=30.0, dpl=compiled(m))
        except Exception as e:  # noqa
            r[label] = None; r[label + "_error"] = str(e)[:200]; continue
        if "eager" in res["variants"]:
            r["eager"] = res["variants"]["eager"].get("median_ms")
        d = res["variants"]["dpl"]
        r[label] = d.get("median_ms"); r[label + "_err"] = d.get("rel_err"); r[label + "_error"] = d.get("error")
    rows.append(r)
    e = r.get("eager") or 0
    olds = [v for v in (r.get("old"), r.get("old2")) if v]
    old = min(olds) if olds else None
    f = lambda v: f"{v*1e3:7.1f}" if v else "   fail"
    new = r.get("new")
    print(f"{spec:40s} eager {f(e)} old {f(r.get('old'))}/{f(r.get('old2'))} ({e/old if old else 0:4.2f}x) "
          f"new {f(new)} ({e/new if new else 0:4.2f}x) new/old speed {old/new if old and new else 0:4.2f} "
          f"err {r.get('new_err') or 0:.1e} {r.get('new_error') or ''}", flush=True)
out = os.environ.get("OUT")
if out:
    json.dump(rows, open(os.path.join(out, "abk.json"), "w"), indent=1)
