"""Session 25 (issue 13, device): the wave model's tensor-core tile pick (schedule_mma.wave_pick)
against the old model's (WAVE_MARGIN infinite, "old"), over the sweep programs of seeds 0 and
41-57 whose tile IR it changes (wavechanged.txt, from patchchanged.py) plus the two other cliffs of
session 24; eager in the same process (bench/ab.py).

    python3 bench/results/session25/tools/waveab25.py [JSON]"""
import math
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import schedule_mma  # noqa: E402

found = [(int(s), n) for s, n, *_ in (line.split() for line in open("bench/results/session25/wavechanged.txt"))]
found += [(s, n) for s, n in [(53, "matmul_tn_223x1481x960"), (42, "bmm_tn_b32_509x983x64")] if (s, n) not in found]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
variants = {"old": lambda: patched(schedule_mma, "WAVE_MARGIN", math.inf), "wave": None}
rows = time_variants(cases, variants, "eager", 20.0, 32, modes=("eager",))
report(rows, list(variants), "eager", 32, sys.argv[1] if len(sys.argv) > 1 else None)
