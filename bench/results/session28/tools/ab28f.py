"""Session 28 (issue 13, device): collapse-pointwise runs a tile whose element count 4 does not
divide and that moves too few bytes for a tail kernel as one flat axis anyway (one element a
thread, flat offsets, no division: SCALAR_FLAT) against the tree before (declined: the tile's
axes flattened by materialize, a division and remainder per access), over the sweep programs
this changes among seeds 0 and 41-130 (LIST: patchchanged.py collapse_pointwise.SCALAR_FLAT
False ... pointwise,norm,softmax,reduce), eager in the same process:

    python3 bench/results/session28/tools/ab28f.py LIST [JSON]

The variant was a flag in collapse_pointwise.py (SCALAR_FLAT: where a tail kernel would not pay,
collapse to one flat axis of all points with no tail) while call 8 ran; not adopted, so the
flag is gone and this tool no longer runs on the tree."""
import sys

sys.path.insert(0, "bench/results/session28/tools")
from common28 import cases_of  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import collapse_pointwise as cp  # noqa: E402

listing, out = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
cases = cases_of(listing)
variants = {"declined": lambda: patched(cp, "SCALAR_FLAT", False), "flat": None}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, out)
