"""Local: does whole-k change the CUDA of any bench/suite.py case (old/new)?"""
import sys
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu/s18")
import suite, wk18
suite.DEV = "cpu"
from dpl.driver.compile import compile as dpl_compile
for case in suite.CASES:
    mod, inputs = case.make()
    src = {}
    for label in ("old", "newu"):
        getattr(wk18, label)()
        src[label] = dpl_compile(mod, *inputs, tune_cache=False).cuda
    print(case.name, "unchanged" if src["old"] == src["newu"] else "CHANGED", flush=True)
