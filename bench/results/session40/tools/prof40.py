"""Session 40 (device): per-kernel times of the sixth batch's slow cases (which kernels the time goes to):

    python3 bench/results/session40/tools/prof39.py [REGEX]"""
import re
import sys

sys.path.insert(0, "bench/results/session40/tools")

from ordinary40 import CASES  # noqa: E402
from dpl.bench import harness as B  # noqa: E402
from dpl.driver.compile import compile as dpl_compile  # noqa: E402

pat = sys.argv[1] if len(sys.argv) > 1 else ""
for case in CASES:
    if not re.search(pat, case.name):
        continue
    fn, inputs = case.build("cuda")
    res = B.benchmark(case.name, fn, inputs, modes=(), profile=True, target_ms=20.0,
                      dpl=lambda f, *xs: dpl_compile(f, *xs, tune_cache=False))
    print(f"== {case.name}: {res['variants']['dpl'].get('median_ms'):.4f} ms, kernels sum {res.get('kernel_sum_ms', 0):.4f}")
    for r in res.get("profile", []):
        print(f"   {r.get('name'):32s} {r.get('median_ms', float('nan')):.4f} ms  grid {r.get('grid')} block {r.get('block')}")
