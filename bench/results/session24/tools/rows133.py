"""Session 24 (issue 13, device): the final fill plan (stage_fills.ROWS_EXTRA = 1.3) on the programs
whose ragged stages by rows take 1.33x the flat order's copies, which call 3 ran by rows (under
4/3) and the plan now splits once: per copy, by rows and the plan, eager in the same process.

    python3 bench/results/session24/tools/rows133.py [JSON]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.kernel import stage_fills  # noqa: E402

found = [(0, "bmm_tt_b4_1024x2635x23"), (48, "matmul_nt_2048x63x17"), (48, "matmul_nt_192x1024x41"),
         (50, "linear_gelu_4096x23to39"), (26, "bmm_nt_b2_127x631x17"), (48, "bmm_nt_b16_128x1491x113")]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
own = stage_fills.fill_plan


def rows(*args):
    return "flat" if own(*args) == "flat" else "rows"


variants = {"per copy": lambda: patched(stage_fills, "fill_plan", lambda *a: "flat"),
            "by rows": lambda: patched(stage_fills, "fill_plan", rows), "plan": None}
table = time_variants(cases, variants, "eager", 20.0, 32, modes=("eager",))
report(table, list(variants), "eager", 32, sys.argv[1] if len(sys.argv) > 1 else None)
