"""Session 28 (host): the sweep matmuls whose tile IR permute-register-tile's short-k at 32
(instead of 64) alters, one `seed name class` line each:

    python bench/results/session28/tools/changed28k.py 0,41,...,130 > LIST"""
import sys

sys.path.insert(0, "bench/results/session28/tools")
from common28 import short_k  # noqa: E402
import sweep  # noqa: E402
from dpl.bench.ab import changed  # noqa: E402

seen: set[str] = set()
for seed in [int(s) for s in sys.argv[1].split(",")]:
    cases = [c for c in sweep.all_cases(seed=seed, classes=["matmul", "bmm", "linear_epilogue", "linear_reduce"])
             if c.name not in seen]  # fmt: skip
    seen.update(c.name for c in cases)
    for c in changed(cases, lambda: short_k(32)):
        print(seed, c.name, c.cls, flush=True)
