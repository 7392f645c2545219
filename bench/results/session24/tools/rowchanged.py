"""Session 24 (issue 13, host): which sweep programs change their kernel IR when stages whose
rows are not a power of two copies long go by rows or split each thread's index once
(stage_fills.fill_plan), against a division and remainder per copy (before). (byrows-changed.txt
lists those the first cut, by rows only, changed.)

    python bench/results/session24/tools/rowchanged.py [SEEDS] [CLASSES]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import changed, patched  # noqa: E402
from dpl.transforms.kernel import stage_fills  # noqa: E402

seeds = [int(s) for s in sys.argv[1].split(",")] if len(sys.argv) > 1 else [0, *range(41, 51)]
classes = sys.argv[2].split(",") if len(sys.argv) > 2 else None
seen: set[str] = set()
for seed in seeds:
    cases = [c for c in sweep.all_cases(seed=seed, classes=classes) if c.name not in seen]
    seen.update(c.name for c in cases)
    for c in changed(cases, lambda: patched(stage_fills, "fill_plan", lambda *a: "flat"), "kernel"):
        print(seed, c.name, c.cls, flush=True)
