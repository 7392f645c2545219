"""Session 28 (issue 13, device): split-matmul-k's sparse-grid splits (any padding, down to
SPARSE_MIN_TRIPS trips) tried wherever the split leaves the launch on fewer blocks than SMs
(SPARSE_GRID 1) against the tree's at most a quarter of them (4), over the sweep matmuls this
changes (LIST, from bench/results/session25/tools/patchchanged.py split_matmul_k.SPARSE_GRID 1),
eager in the same process:

    python3 bench/results/session28/tools/ab28s.py LIST [JSON [LIMIT]]"""
import sys

sys.path.insert(0, "bench/results/session28/tools")
from common28 import cases_of  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import split_matmul_k as smk  # noqa: E402

listing, out = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
cases = cases_of(listing, int(sys.argv[3]) if len(sys.argv) > 3 else 10**9)
variants = {"grid4": None, "grid1": lambda: patched(smk, "SPARSE_GRID", 1)}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, out)
