"""Local: which sweep (all classes) and suite programs change CUDA with FILL_UNROLL_TRIPS 8 -> 16."""
import sys
sys.path.insert(0, "bench")
import sweep, suite
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.kernel import stage_fills
suite.DEV = "cpu"


def changed(fn, inputs):
    srcs = []
    for t in (8, 16):
        stage_fills.FILL_UNROLL_TRIPS = t
        srcs.append(dpl_compile(fn, *inputs, tune_cache=False).cuda)
    return srcs[0] != srcs[1]


which = sys.argv[1]
if which == "suite":
    for case in suite.CASES:
        if "layer" in case.name:
            continue
        mod, inputs = case.make()
        print("suite", case.name, "CHANGED" if changed(mod, inputs) else "-", flush=True)
else:
    for s in [int(a) for a in which.split(",")]:
        for c in sweep.all_cases(seed=s):
            if c.io_bytes > 1.2e9 or c.cls == "pointwise":
                continue
            fn, inputs = c.build("cpu")
            if changed(fn, inputs):
                print(s, c.name, flush=True)
