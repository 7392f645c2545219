"""Session 24 (issue 13, device): stages whose rows are not a power of two copies long, filled as
stage_fills.fill_plan says (by rows, or each thread's index split once), against a division and
a remainder per copy (before, "per copy") and against split once wherever the plan is not flat.
Call 1 ran the first cut, by rows only ("by rows"), over the programs it changed
(byrows-changed.txt); call 2 split once only ("split once"). The cases are the sweep programs of
seeds 0 and 41-50 whose kernel IR changes (rowchanged.txt, from rowchanged.py), four of seeds
26-27 and three norms over contiguous slabs that split once made slower in call 2; eager in the
same process (bench/ab.py).

    python3 bench/results/session24/tools/rowab24.py [JSON]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.kernel import stage_fills  # noqa: E402

found = [(int(s), n) for s, n, *_ in (line.split() for line in open("bench/results/session24/rowchanged.txt"))]
found += [(26, "bmm_nt_b2_127x631x17"), (26, "bmm_nt_b64_97x739x37"), (27, "bmm_tt_b16_271x16x19"),
          (27, "bmm_nn_b64_2688x64x53")]
found += [(s, n) for s, n in [(43, "layernorm_last2_128x32x175"), (44, "layernorm_last2_192x32x171"),
                              (50, "rmsnorm_last2_23x389x64x15")] if (s, n) not in found]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
own = stage_fills.fill_plan


def split(*args):
    return "flat" if own(*args) == "flat" else "split"


variants = {"per copy": lambda: patched(stage_fills, "fill_plan", lambda *a: "flat"),
            "split once": lambda: patched(stage_fills, "fill_plan", split), "plan": None}
rows = time_variants(cases, variants, "eager", 20.0, 32, modes=("eager",))
report(rows, list(variants), "eager", 32, sys.argv[1] if len(sys.argv) > 1 else None)
