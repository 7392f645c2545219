"""Session 21 (issue 13, call 2): tensor-core candidates for matmuls with an M or N under 32.
The sweep programs (seeds 0-12, 27, 41) whose schedule changes when schedule_mma.MIN_MN goes
from 32 to 16 (`smallmchanged.py`), and decode-like matmuls with an M of 1-12, each under
MIN_MN 32 (before), 16 (the tree) and 1; eager and torch.compile in the same process
(bench/ab.py: CUDA graphs, inputs rotated past L2, checked against float64).

    python3 bench/results/session21/tools/smallm21b.py"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import schedule_mma  # noqa: E402

CHANGED = ("0 linear_amax_16x449to8192;0 matmul_tn_1117x19x347;1 linear_amax_16x8192to32;1 matmul_nn_896x29x2221;"
           "1 linear_amax_16x7296to47;2 matmul_nt_673x29x877;2 matmul_nt_64x16x1024;5 bmm_tt_b4_29x83x459;"
           "6 bmm_nt_b10_23x31x631;7 matmul_nn_21x51x1024;8 matmul_nt_29x29x4561;8 bmm_tn_b8_23x2741x2816;"
           "8 matmul_tt_19x3793x1088;9 linear_amax_19x2267to671;9 linear_mean_1856x269to29;"
           "9 matmul_tn_1381x23x2063;10 linear_gelu_16x640to421;10 matmul_nn_1997x19x821;"
           "11 bmm_tn_b2_16x315x832;27 matmul_tt_641x16x2048;27 bmm_nt_b9_29x167x1313;27 matmul_nn_67x23x479;"
           "41 bmm_nt_b35_16x64x1367;41 linear_amax_23x565to192")
C = sweep.matmul_case
cases = []
by_seed: dict = {}
for item in CHANGED.split(";"):
    seed, name = item.split()
    if seed not in by_seed:
        by_seed[seed] = {c.name: c for c in sweep.all_cases(seed=int(seed))}
    cases.append(by_seed[seed][name])
cases += [C(31, 3001, 997, "tn"), C(1, 4096, 4096, "nt"), C(4, 11008, 4096, "nt"), C(8, 4096, 4096, "nn"),
          C(1, 32000, 2048, "nt"), C(12, 1024, 4096, "tn"), C(1, 1024, 128, "nn", batch=32),
          C(2, 4096, 14336, "nt"), C(1, 3, 4096, "nn")]
variants = {"mn32": lambda: patched(schedule_mma, "MIN_MN", 32), "mn16": None,
            "mn1": lambda: patched(schedule_mma, "MIN_MN", 1)}
rows = time_variants(cases, variants, "eager", 20.0, 32)
report(rows, list(variants), "eager", 32, None)
