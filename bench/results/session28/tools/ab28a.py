"""Session 28 (issue 13, device): float atomic max / min as one native integer atomic (the tree)
against the compare-and-swap loops before (cas_helpers.py), over the sweep programs of seeds 0
and 41-130 whose CUDA folds floats so (LIST, atomiclist28.py), eager in the same process:

    python3 bench/results/session28/tools/ab28a.py LIST [JSON [LIMIT]]"""
import sys

sys.path.insert(0, "bench/results/session28/tools")
from cas_helpers import CAS_HELPERS  # noqa: E402
from common28 import cases_of  # noqa: E402
from contextlib import ExitStack, contextmanager  # noqa: E402
from dpl.backend import cuda_printer as cp  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402


@contextmanager
def cas():
    with ExitStack() as stack:
        old = {k: cp.HELPERS[k] for k in CAS_HELPERS}
        cp.HELPERS.update(CAS_HELPERS)
        stack.callback(cp.HELPERS.update, old)
        yield


listing, out = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
cases = cases_of(listing, int(sys.argv[3]) if len(sys.argv) > 3 else 10**9)
variants = {"cas": cas, "int": None}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, out)
