"""Session 25 (issue 13, device): a padded tensor-core tile's fixed steps per block costed at its
masked step (fixedstep.variant) against today, over the two sweep programs of seeds 0 and 41-59
it changes (fixedstep.py); eager in the same process (bench/ab.py).

    python3 bench/results/session25/tools/fixedab25.py [JSON]"""
import sys

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session25/tools")
import fixedstep  # noqa: E402
import sweep  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

found = [(42, "bmm_tn_b32_509x983x64"), (44, "bmm_tn_b7_640x576x317")]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
variants = {"today": None, "fixed at step": fixedstep.variant}
rows = time_variants(cases, variants, "eager", 40.0, 32, modes=("eager",))
report(rows, list(variants), "eager", 32, sys.argv[1] if len(sys.argv) > 1 else None)
