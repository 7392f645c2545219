"""Time dpl (and eager with --eager) on sweep cases: python abcases.py "seed:name ..." [--eager] > out"""
import json, logging, os, sys, time
sys.path.insert(0, os.path.join(os.environ.get("SWEEP_DIR", "bench")))
import torch, sweep, dpl
from dpl.bench import harness as B
logging.disable(logging.WARNING)
specs = sys.argv[1].split()
modes = "eager" if "--eager" in sys.argv else ""
by_seed = {}
print("# dpl from", dpl.__file__, flush=True)
for spec in specs:
    seed, name = spec.split(":")
    if seed not in by_seed:
        by_seed[seed] = {c.name: c for c in sweep.all_cases(int(seed))}
    case = by_seed[seed][name]
    fn, inputs = case.build("cpu")
    t0 = time.time()
    try:
        res = B.benchmark(name, fn, inputs, modes=modes, target_ms=40.0)
        v = res["variants"]
        d = v["dpl"]
        e = v.get("eager", {})
        print(json.dumps({"case": spec, "dpl_ms": d.get("median_ms"), "eager_ms": e.get("median_ms"),
                          "err": d.get("rel_err"), "check": res.get("check"), "error": d.get("error"),
                          "s": round(time.time() - t0, 1)}), flush=True)
    except Exception as ex:
        print(json.dumps({"case": spec, "error": str(ex)[:200]}), flush=True)
    torch.cuda.empty_cache()
