"""Session 28 (issue 13, device): a one-pass column reduction whose columns 8 lanes (blocks of
256) do not fill the SMs twice, on blocks of 512 or 1024 threads (so that column_lanes may take
16 or 32 lanes; common28.column_block) against the tree, over every third sweep program of
seeds 0 and 41-130 that this changes (LIST: colblocksample.txt of colblockchanged.txt,
changed28c.py), eager in the same process:

    python3 bench/results/session28/tools/ab28c.py LIST [JSON [LIMIT]]"""
import sys

sys.path.insert(0, "bench/results/session28/tools")
from common28 import cases_of, column_block  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

listing, out = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
cases = cases_of(listing, int(sys.argv[3]) if len(sys.argv) > 3 else 10**9)
variants = {"tree": None, "b512": lambda: column_block(512), "b1024": lambda: column_block(1024)}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, out)
