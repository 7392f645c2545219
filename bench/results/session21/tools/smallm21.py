"""Session 21 (issue 13): matmuls with an M (or N) under schedule_mma.MIN_MN (32), which stay on
SIMT, against the same programs with tensor-core candidates allowed from 16 (the model then
picks among SIMT and wgmma, padded), eager and torch.compile in one process (bench/ab.py).

    python3 bench/results/session21/tools/smallm21.py"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import schedule_mma  # noqa: E402

C = sweep.matmul_case
cases = [C(25, 1381, 101, "tt", batch=21), C(24, 4096, 4096), C(17, 4096, 11008, "nt"),
         C(30, 2000, 512, "nt", batch=8), C(4096, 20, 4096, "nn"), C(31, 3001, 997, "tn"),
         C(16, 8192, 1024, "nt", batch=4)]
variants = {"default": None, "tc16": lambda: patched(schedule_mma, "MIN_MN", 16)}
rows = time_variants(cases, variants, "eager", 40.0, 32)
report(rows, list(variants), "eager", 32, None)
