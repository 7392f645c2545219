"""Session 28 (host): the sweep reductions whose tile IR blocks of 512 threads for one-pass
column reductions (common28.column_block) alter, one `seed name class` line each:

    python bench/results/session28/tools/changed28c.py 0,41,...,130 > LIST"""
import sys

sys.path.insert(0, "bench/results/session28/tools")
from common28 import column_block  # noqa: E402
import sweep  # noqa: E402
from dpl.bench.ab import changed  # noqa: E402

seen: set[str] = set()
for seed in [int(s) for s in sys.argv[1].split(",")]:
    cases = [c for c in sweep.all_cases(seed=seed, classes=["reduce"]) if c.name not in seen]
    seen.update(c.name for c in cases)
    for c in changed(cases, lambda: column_block(512)):
        print(seed, c.name, c.cls, flush=True)
