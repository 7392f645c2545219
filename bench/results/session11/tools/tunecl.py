"""Sweep programs: dpl default vs eager (harness), then `dpl tune` their kernels, then dpl tuned
(the cache) vs eager. python .gpu/tunecl.py "seed:name ..." (set DPL_CACHE_DIR to a fresh dir)"""
import json, logging, os, sys, time
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import torch, sweep
from dpl.bench import harness as B
from dpl.driver.tune import GpuMeasurer, program_kernels, tune
from dpl.driver.tune_cache import TuneCache
from dpl.frontend import capture
logging.disable(logging.WARNING)
specs = sys.argv[1].split() if __name__ == "__main__" else []
trials, budget = int(os.environ.get("TRIALS", 24)), float(os.environ.get("BUDGET", 30))
def bench(spec):
    seed, name = spec.split(":")
    (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == name]
    fn, inputs = case.build("cpu")
    res = B.benchmark(name, fn, inputs, modes="eager", target_ms=40.0)
    v = res["variants"]
    return v["dpl"].get("median_ms"), v["eager"].get("median_ms"), v["dpl"].get("rel_err")
def main():
    before = {s: bench(s) for s in specs}
    meas = GpuMeasurer(); cache = TuneCache()
    for s in specs:
        seed, name = s.split(":")
        (case,) = [c for c in sweep.all_cases(int(seed)) if c.name == name]
        fn, inputs = case.build("meta")
        ks = program_kernels(capture(fn, *inputs, dtype=torch.float32).module)
        t0 = time.time()
        rs = tune(ks, cache, meas, trials=trials, budget_s=budget)
        print(f"# tuned {s}: " + ", ".join(f"{r.kernel.name} {r.default_us and round(r.default_us,1)} -> {r.best_us and round(r.best_us,1)} us" for r in rs) + f" ({time.time()-t0:.0f} s)", flush=True)
    meas.close()
    for s in specs:
        d, e, err = bench(s)
        d0, e0, _ = before[s]
        print(json.dumps({"case": s, "default_ms": d0, "tuned_ms": d, "eager_ms": e, "eager_ms_before": e0,
                          "default_x_eager": e0 / d0 if d0 else None, "tuned_x_eager": e / d if d else None, "err": err}), flush=True)

if __name__ == "__main__":
    main()
