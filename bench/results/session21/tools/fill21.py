"""Session 21 (issue 13, call 6): column reductions whose outer column axis would leave fewer
blocks than SMs: the tree (the column alone on the warp there) against b9d8d63 (the outer axis
takes the rest of the warp whatever the blocks; `blockify_before.py` beside this script: git show
b9d8d63:transforms/tile/blockify_launch.py), eager and torch.compile in one process.

    python3 bench/results/session21/tools/fill21.py"""
import importlib.util
import os
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import blockify_launch  # noqa: E402

spec = importlib.util.spec_from_file_location("blockify_before", os.path.join(os.path.dirname(__file__), "blockify_before.py"))
old = importlib.util.module_from_spec(spec)
sys.modules["blockify_before"] = old
spec.loader.exec_module(old)
found = [(1, "rmsnorm_c_2x193x64x11"), (8, "amax_d0_256x1409x2"), (43, "amax_d1_71x79x128x5")]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
cases += [sweep.norm_case("rmsnorm_c", (8, 256, 40, 7), 1)]
variants = {"b9d8d63": lambda: patched(blockify_launch, "_column_threads", lambda t, sms: old._column_threads(t)),
            "tree": None}
rows = time_variants(cases, variants, "eager", 20.0, 32)
report(rows, list(variants), "eager", 32, None)
