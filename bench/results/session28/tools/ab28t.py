"""Session 28 (issue 13, device): collapse-pointwise's min-tail-bytes from VECTOR_GAIN 0.5 and
1.0 (a tail kernel from 18 / 9 MB moved, float4s before it) against the tree's 0.25 (36 MB:
smaller tiles of an element count 4 does not divide stay one float a thread), over the sweep
pointwise programs VECTOR_GAIN 1.0 changes among seeds 0 and 41-130 (LIST, from
bench/results/session25/tools/patchchanged.py collapse_pointwise.VECTOR_GAIN 1.0 ... pointwise),
eager and torch.compile in the same process:

    python3 bench/results/session28/tools/ab28t.py LIST [JSON]"""
import sys

sys.path.insert(0, "bench/results/session28/tools")
from common28 import cases_of  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import collapse_pointwise as cp  # noqa: E402

listing, out = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
cases = cases_of(listing)
variants = {"gain0.25": None, "gain0.5": lambda: patched(cp, "VECTOR_GAIN", 0.5),
            "gain1.0": lambda: patched(cp, "VECTOR_GAIN", 1.0)}  # fmt: skip
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager", "compile"))
report(rows, list(variants), "eager", 34, out)
report(rows, list(variants), "compile", 34, None)
