"""Session 30 (issue 13, device): masked scalar loads as an unconditional load at the clamped
index and a select (common30m.select_loads) against the tree's `if (inside) v = x[...]`, on the
53 sweep programs of seeds 70-74 whose CUDA it changes (selectchanged.txt, from changed30m.py):

    python3 bench/results/session30/tools/ab30m.py LIST [JSON]"""
import sys

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session28/tools")
sys.path.insert(0, "bench/results/session30/tools")
from common28 import cases_of  # noqa: E402
from common30m import select_loads  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

cases = cases_of(sys.argv[1])
variants = {"tree": None, "select": select_loads}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, sys.argv[2] if len(sys.argv) > 2 else None)
