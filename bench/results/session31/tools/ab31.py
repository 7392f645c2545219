"""Session 31 (issue 13, device): one of the session's changes against the tree without it, on
the sweep programs of seeds 62-130 whose IR it changes, against eager and torch.compile in one
process. VARIANT `merge` (call 2): merge-dims against common31.old_merge, on every third of
mergechanged.txt (mergesample.txt); `tail` (call 3): pointwise tails at any size in their
kernel's launch against common31.old_tail, on every second of tailchanged.txt (tailsample.txt);
`restrict` (call 5): `__restrict__` buffer parameters against common31.old_restrict, on the
first 45 programs of unseen seed 79 (restrictcases.txt, every class: the change touches every
kernel):

    python3 bench/results/session31/tools/ab31.py VARIANT LIST [JSON]"""
import sys

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session28/tools")
sys.path.insert(0, "bench/results/session31/tools")
from common28 import cases_of  # noqa: E402
from common31 import old_merge, old_restrict, old_tail  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

old = {"merge": old_merge, "tail": old_tail, "restrict": old_restrict}[sys.argv[1]]
cases = cases_of(sys.argv[2])
variants = {"old": old, "tree": None}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager", "compile"))
report(rows, list(variants), "eager", 34, sys.argv[3] if len(sys.argv) > 3 else None)
