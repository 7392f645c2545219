"""Local: matmul sweep cases whose CUDA whole-k changes (old/new)."""
import sys
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu/s18")
import sweep, wk18
from dpl.driver.compile import compile as dpl_compile
for s in [int(a) for a in sys.argv[1].split(",")]:
    for c in sweep.all_cases(seed=s):
        if c.cls not in ("matmul", "bmm", "linear_epilogue", "linear_reduce") or "issue13" in c.tags:
            continue
        fn, inputs = c.build("cpu")
        src = {}
        for label in ("old", "new"):
            getattr(wk18, label)()
            try:
                src[label] = dpl_compile(fn, *inputs, tune_cache=False).cuda
            except Exception as e:
                src[label] = f"ERR {e}"
        if src["old"] != src["new"]:
            print(s, c.name, "ERR" if "ERR" in src["new"][:3] else "", src["new"][:200] if src["new"].startswith("ERR") else "", flush=True)
