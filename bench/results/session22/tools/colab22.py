"""Session 22 (issue 13, call 2): one-pass column reductions with the fewest lanes that fill the
GPU (blockify_launch.column_lanes, COLUMN_FILL_WAVES 1 and 2) against always 8 lanes beside one
warp of columns (before), eager and torch.compile in one process (bench/ab.py). The cases are
every sweep program of seeds 0-12, 27, 41, 43-45 whose tile IR the change alters
(colchanged.py), and three more shapes.

    python3 bench/results/session22/tools/colab22.py"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import blockify_launch  # noqa: E402

found = [(0, "mean_d1_32x1024x8192"), (0, "amax_d1_64x255x11x439"), (1, "softmax_d2_256x7x307x64"),
         (3, "rmsnorm_c_64x417x7x137"), (4, "sum_d1_59x64x8x512"), (5, "amax_d0_128x768x91"),
         (5, "sum_d0_1024x256x512"), (7, "mean_d0_256x64x1536"), (8, "mean_d0_64x13x448x192"),
         (9, "amax_d0_1285x256x739"), (9, "sum_d1_2048x32x512"), (10, "mean_d1_512x32x768"),
         (10, "amax_d0_192x64x2048"), (27, "amax_d0_256x256x3x317"), (44, "amax_d1_512x499x640"),
         (45, "sum_d1_512x37x2117")]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
cases += [sweep.reduce_case((256, 9, 4097), "sum", (1,)), sweep.reduce_case((100, 300, 1000), "amax", (1,)),
          sweep.reduce_case((3, 64, 100000), "mean", (1,))]
variants = {"before": lambda: patched(blockify_launch, "COLUMN_FILL_WAVES", 10**9),
            "2 waves": lambda: patched(blockify_launch, "COLUMN_FILL_WAVES", 2), "tree": None}
rows = time_variants(cases, variants, "eager", 20.0, 32)
report(rows, list(variants), "eager", 32, sys.argv[1] if len(sys.argv) > 1 else None)
