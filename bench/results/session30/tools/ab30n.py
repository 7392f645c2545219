"""Session 30 (issue 13, device): the sweep norms this session's changes alter (changed.txt, from
changed30.py), plus LayerNorms over one long dim, timed in one process against eager:
`old` (session 29's tree), `collapse` (collapse-pointwise keeping leading axes, no
chunk-variance), `tree` (both; chunk-variance's chunks the shortest of at least 256) and `c1024`
(of at least 1024). Call 2 ran it with chunk-variance's first rule (the longest chunk of at most
8192) as `tree` and at most 256 as `c256`: the rule the tree has came from it.

    python3 bench/results/session30/tools/ab30n.py LIST [JSON]"""
import sys

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session28/tools")
sys.path.insert(0, "bench/results/session30/tools")
import sweep  # noqa: E402
from common28 import cases_of  # noqa: E402
from common30 import chunk, old, old_chunk  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

cases = cases_of(sys.argv[1]) + [sweep.norm_case("layernorm", (8, 1048576), 1),
                                 sweep.norm_case("layernorm", (4, 4194301), 1)]
variants = {"old": old, "collapse": old_chunk, "tree": None, "c1024": lambda: chunk(1024)}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, sys.argv[2] if len(sys.argv) > 2 else None)
