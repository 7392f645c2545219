"""Session 29 (issue 13, device): split-matmul-k's sparse splits on SIMT 128 x 128 tiles too
(changed29.big_sparse: sparse-tile 4096 -> 16384) against the tree, over the sweep matmuls this
changes (LIST, from changed29.py), eager in the same process:

    python3 bench/results/session29/tools/ab29b.py LIST [JSON [LIMIT]]"""
import sys

sys.path.insert(0, "bench/results/session28/tools")
sys.path.insert(0, "bench/results/session29/tools")
from changed29 import big_sparse  # noqa: E402
from common28 import cases_of  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

listing, out = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
cases = cases_of(listing, int(sys.argv[3]) if len(sys.argv) > 3 else 10**9)
variants = {"tree": None, "big": big_sparse}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, out)
