"""Session 24 (issue 13, device, not landed): wgmma block tiles with 128 x 64 added at efficiency
0.75 (schedule_mma.TILES) against the tiles as they are, over a sample of the sweep matmuls
whose tile IR it changes (tilechanged-sample.txt: those of seeds 0 and 41-43, from
tilechanged.py, and seed 53's); eager in the same process (bench/ab.py).

    python3 bench/results/session24/tools/tileab24.py [JSON]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import schedule_mma  # noqa: E402

found = [(int(s), n) for s, n, *_ in (line.split() for line in open("bench/results/session24/tilechanged-sample.txt"))]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
variants = {"tiles": None,
            "+128x64": lambda: patched(schedule_mma, "TILES", schedule_mma.TILES + ((128, 64, 0.75),))}
rows = time_variants(cases, variants, "eager", 20.0, 32, modes=("eager",))
report(rows, list(variants), "eager", 32, sys.argv[1] if len(sys.argv) > 1 else None)
