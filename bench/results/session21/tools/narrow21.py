"""Session 21 (issue 13, call 5): column reductions whose contiguous axis is narrower than a
warp and not a power of two (padded by pad-columns), as the tree schedules them (the axis before
it in memory takes the rest of the warp) against before (the padded axis alone on the warp, the
lanes along the reduce), eager and torch.compile in one process (bench/ab.py).

    python3 bench/results/session21/tools/narrow21.py"""
import importlib.util
import os
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import blockify_launch, pad_columns  # noqa: E402

# pad_columns.outer_column as before (`pad_columns_before.py` beside this script: git show
# 8a5a2de:transforms/tile/pad_columns.py)
spec = importlib.util.spec_from_file_location("pad_columns_before", os.path.join(os.path.dirname(__file__), "pad_columns_before.py"))
old = importlib.util.module_from_spec(spec)
sys.modules["pad_columns_before"] = old
spec.loader.exec_module(old)


def before():
    import contextlib
    stack = contextlib.ExitStack()
    stack.enter_context(patched(pad_columns, "outer_column", old.outer_column))
    stack.enter_context(patched(blockify_launch, "outer_column", old.outer_column))
    return stack


found = [(1, "rmsnorm_c_2x193x64x11"), (6, "rmsnorm_c_47x320x64x3"), (41, "softmax_d0_64x47x64x5"),
         (43, "amax_d1_71x79x128x5")]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
cases += [sweep.reduce_case((64, 300, 64, 3), "sum", (1,)), sweep.softmax_case((32, 100, 52, 7), 1),
          sweep.reduce_case((16, 200, 96, 6), "mean", (1,)), sweep.norm_case("rmsnorm_c", (8, 256, 40, 7), 1)]
variants = {"before": before, "tree": None}
rows = time_variants(cases, variants, "eager", 20.0, 32)
report(rows, list(variants), "eager", 32, None)
