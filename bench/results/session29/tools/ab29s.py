"""Session 29 (issue 13, device): split-matmul-k's sparse splits wherever a split leaves the launch
on fewer blocks than SMs (SPARSE_GRID 1), with the schedule weighing the count a sparse split
displaced (`tile.dense_splits`), against the tree of session 28 (SPARSE_GRID 4, nothing
weighed), eager in the same process. The cases: a few named shapes (the in-sample cliff of
session 28's call 5, the thin and short-K shapes of the lit and unit tests the change moves),
then the sweep programs of LIST (held out: seeds 64-130 of session 28's sparsechanged.txt):

    python3 bench/results/session29/tools/ab29s.py LIST [JSON [LIMIT]]"""
import sys

sys.path.insert(0, "bench/results/session28/tools")
sys.path.insert(0, "bench/results/session29/tools")
sys.path.insert(0, "bench")
import sweep  # noqa: E402
from common28 import cases_of  # noqa: E402
from common29 import old  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

NAMED = [
    sweep.matmul_case(1117, 19, 347, "tn"),  # session 28 call 5's cliff (seed 0)
    sweep.matmul_case(31, 3001, 997, "tn"),  # test_mma_ragged's thin M (session 21: wgmma 0.91x)
    sweep.matmul_case(64, 3389, 300, "tn"),  # schedule-small-tc-grid.mlir's @k_longer
    sweep.linear_reduce_case(128, 704, 1152, "mean"),  # test_wave_model's LINEAR (seed 42)
]

listing, out = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
cases = NAMED + cases_of(listing, int(sys.argv[3]) if len(sys.argv) > 3 else 10**9)
variants = {"old": old, "new": None}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, out)
