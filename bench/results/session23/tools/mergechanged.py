"""Session 23 (issue 13, host): which sweep programs change their tile IR when merge-columns runs
a narrow ragged column axis and the axis before it as one (against never merging,
merge_columns.WASTE_MIN = 1). mergechanged.txt is from the first rule, before FILL_WAVES: on the
final tree some of those (rmsnorm_c 2 x 193 x 64 x 11) are declined and no longer listed.

    python bench/results/session23/tools/mergechanged.py [SEEDS]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import changed, patched  # noqa: E402
from dpl.transforms.tile import merge_columns  # noqa: E402

seeds = [int(s) for s in sys.argv[1].split(",")] if len(sys.argv) > 1 else list(range(49))
seen: set[str] = set()
for seed in seeds:
    cases = [c for c in sweep.all_cases(seed=seed, classes=["reduce", "softmax", "norm", "linear_reduce"])
             if c.name not in seen]
    seen.update(c.name for c in cases)
    for c in changed(cases, lambda: patched(merge_columns, "WASTE_MIN", 1.0)):
        print(seed, c.name, "CHANGED", flush=True)
