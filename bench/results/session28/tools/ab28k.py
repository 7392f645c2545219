"""Session 28 (issue 13, device): permute-register-tile's short-k at 32 (a K of 33-64 keeps the
N side's cells in runs of 4, read as one LDS.128) against the tree's 64 (the N side interleaved
for its stores), over the sweep matmuls it changes among seeds 0 and 41-130 (LIST,
changed28k.py), eager in the same process:

    python3 bench/results/session28/tools/ab28k.py LIST [JSON [LIMIT]]"""
import sys

sys.path.insert(0, "bench/results/session28/tools")
from common28 import cases_of, short_k  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

listing, out = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
cases = cases_of(listing, int(sys.argv[3]) if len(sys.argv) > 3 else 10**9)
variants = {"k64": None, "k32": lambda: short_k(32)}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, out)
