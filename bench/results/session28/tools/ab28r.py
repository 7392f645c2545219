"""Session 28 (issue 13, device): short packed rows whose output loop can move a float4 a lane
take those lanes (2 for f32 rows of 8, 4 for 16), and vectorize-access makes a loop float4
through a store guard (packed rows rounded past the last row). Variants, eager and
torch.compile in the same process:
  old     the tree before (row_lanes' most lanes at the fewest slots; a guarded store scalar),
  guards  the old lanes, the guarded stores float4,
  new     the tree (both).
Cases: the sweep programs the change alters among seeds 0 and 41-130 (LIST, changed28.py)
and rows chosen to cover the rule (masked and not, 8 / 16 / 32, softmax and norms):

    python3 bench/results/session28/tools/ab28r.py LIST [JSON]"""
import sys

sys.path.insert(0, "bench/results/session28/tools")
from common28 import cases_of, old_rows  # noqa: E402
import sweep  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

EXTRA = [
    sweep.softmax_case((1000003, 8), -1),
    sweep.softmax_case((300007, 8), -1),
    sweep.softmax_case((4096, 512, 16), -1),
    sweep.softmax_case((999, 997, 16), -1),
    sweep.norm_case("layernorm", (2000, 577, 16), 1),
    sweep.norm_case("rmsnorm", (512, 1031, 8), 1),
    sweep.norm_case("layernorm", (333333, 32), 1),
]
listing, out = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
cases = cases_of(listing) + EXTRA
variants = {"old": old_rows, "guards": lambda: old_rows(guards=False), "new": None}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager", "compile"))
report(rows, list(variants), "eager", 34, out)
report(rows, list(variants), "compile", 34, None)
