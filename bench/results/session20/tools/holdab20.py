"""Session 20 (issue 13, call 7): hold-rows holding a column along a middle dim (the tree)
against holding only along the last dim (before), on the sweep programs whose kernels it
changes (`holdchanged.py`), eager and torch.compile in the same process (bench/ab.py: CUDA
graphs, inputs rotated past L2, checked against float64).

    python3 bench/results/session20/tools/holdab20.py"""
import sys
sys.path.insert(0, "bench")
import sweep
from dpl.bench.ab import patched, report, time_variants
from dpl.transforms.tile import hold_rows

PROGRAMS = [(0, "rmsnorm_c_32x256x56x56"), (41, "softmax_d0_64x47x64x5"), (1, "softmax_d2_131x29x128x109"),
            (1, "rmsnorm_c_2x193x64x11"), (2, "softmax_d2_64x45x64x313"), (2, "rmsnorm_c_256x239x4x64"),
            (3, "rmsnorm_c_32x128x32x311"), (3, "rmsnorm_c_256x43x29x16"), (4, "rmsnorm_c_32x64x5x32"),
            (5, "softmax_d1_233x59x64"), (5, "rmsnorm_c_8x128x8x256"), (6, "softmax_d2_64x7x64x32"),
            (9, "rmsnorm_c_5x128x64x128"), (9, "softmax_d0_32x64x8x64"), (10, "softmax_d1_653x32x475"),
            (10, "rmsnorm_c_11x64x73x64"), (11, "rmsnorm_c_43x41x13x113"), (11, "softmax_d2_384x64x64x64"),
            (11, "rmsnorm_c_17x64x256x32")]
NEW = hold_rows._row_dim


def last_dim_only(load, iv, bound):
    d = NEW(load, iv, bound)
    return d if d == len(load.map.data.results) - 1 else None


cases = []
for seed, name in PROGRAMS:
    cases.append(next(c for c in sweep.all_cases(seed=seed) if c.name == name))
variants = {"before": lambda: patched(hold_rows, "_row_dim", last_dim_only), "held": None}
rows = time_variants(cases, variants, "eager", 40.0, 28)
report(rows, list(variants), "eager", 28, None)
for v in variants:
    worst = max((r[v].get("rel_err") or 0) for r in rows)
    print(f"{v}: worst error against float64 {worst:.1e}")
