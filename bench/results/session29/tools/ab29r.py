"""Session 29 (issue 13, device): the race's SIMT entrant as the SIMT candidate of least wave time
(schedule.RACE_SIMT_BY_WAVE, the tree) against the one the old model ranks first (False), over
the sweep matmuls this changes (LIST, from session 25's patchchanged.py), eager in the same
process:

    git apply bench/results/session29/tools/race-variant.patch   # the variant, not kept (notes, section 3)
    python3 bench/results/session29/tools/ab29r.py LIST [JSON [LIMIT]]"""
import sys

sys.path.insert(0, "bench/results/session28/tools")
from common28 import cases_of  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import schedule as S  # noqa: E402

listing, out = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
cases = cases_of(listing, int(sys.argv[3]) if len(sys.argv) > 3 else 10**9)
variants = {"oldfirst": lambda: patched(S, "RACE_SIMT_BY_WAVE", False), "wave": None}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, out)
