"""Session 28 (host): the sweep programs whose kernel IR the short-row change alters (old_rows
against the tree), one `seed name class` line each:

    python bench/results/session28/tools/changed28.py 0,41,...,130 [CLASSES] > LIST"""
import sys

sys.path.insert(0, "bench/results/session28/tools")
from common28 import old_rows  # noqa: E402
import sweep  # noqa: E402
from dpl.bench.ab import changed  # noqa: E402

seeds = [int(s) for s in sys.argv[1].split(",")]
classes = sys.argv[2].split(",") if len(sys.argv) > 2 else None
seen: set[str] = set()
for seed in seeds:
    cases = [c for c in sweep.all_cases(seed=seed, classes=classes) if c.name not in seen]
    seen.update(c.name for c in cases)
    for c in changed(cases, old_rows, level="kernel"):
        print(seed, c.name, c.cls, flush=True)
