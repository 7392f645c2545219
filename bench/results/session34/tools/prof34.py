"""Session 34 (device): per-kernel times (each alone, L2 flushed) of the ordinary programs still
below eager, to find where their time goes:

    python3 bench/results/session34/tools/prof34.py REGEX"""
import re
import sys

sys.path.insert(0, "bench/results/session34/tools")
from ordinary34 import CASES as A  # noqa: E402
from ordinary34b import CASES as B_  # noqa: E402
from dpl.bench import harness as H  # noqa: E402

for case in A + B_:
    if not re.search(sys.argv[1], case.name):
        continue
    fn, inputs = case.build("cuda")
    res = H.benchmark(case.name, fn, inputs, modes=("eager",), ceilings=False, target_ms=20.0, profile=True)
    print(H.format_table(res), flush=True)
