"""Session 25 (issue 13, device): the schedule taking copied-aligned operands (repack-operands) up
to a modeled share of 0.95 or 1.0 of the best schedule without them, against today's 0.89
(schedule.REPACK_MARGIN, fitted on the H100 in sessions 3-4), over the 24 sweep programs of seeds
0 and 41-59 that 1.0 changes (repackchanged.txt, from patchchanged.py); eager in the same
process (bench/ab.py).

    python3 bench/results/session25/tools/repackab25.py [JSON]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import schedule  # noqa: E402

found = [(int(s), n) for s, n, *_ in (line.split() for line in open("bench/results/session25/repackchanged.txt"))]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
variants = {"0.89": None, "0.95": lambda: patched(schedule, "REPACK_MARGIN", 0.95),
            "1.0": lambda: patched(schedule, "REPACK_MARGIN", 1.0)}
rows = time_variants(cases, variants, "eager", 20.0, 32, modes=("eager",))
report(rows, list(variants), "eager", 32, sys.argv[1] if len(sys.argv) > 1 else None)
