"""Session 21 (issue 13, call 3): the tree's thin-matmul and vector-matrix schedules against
those before (schedule_mma.MIN_MN 32, and pad_columns.column_axis refusing any load along the
loops' own index), eager and torch.compile in the same process (bench/ab.py: CUDA graphs,
inputs rotated past L2, checked against float64).

    python3 bench/results/session21/tools/thinvec21.py"""
import contextlib
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.dialects import loop  # noqa: E402
from dpl.transforms.tile import blockify_launch, pad_columns, schedule_mma  # noqa: E402
from dpl.transforms.tile.matmul import dim_forms  # noqa: E402

NEW = pad_columns.column_axis


def column_axis_before(t):
    """column_axis as before 09e2a49: any load along the loops' own index is a row reduction."""
    for f in [o for o in t.body.block.ops if isinstance(o, loop.ForOp)]:
        ivs = {o.iv for o in f.walk() if isinstance(o, loop.ForOp)}
        for ld in [o for o in f.walk() if isinstance(o, loop.LoadOp)]:
            forms = dim_forms(ld)
            if forms and forms[-1] is not None and ivs & set(forms[-1][0]):
                return "the loops read along their own index (a row reduction)"
    return NEW(t)


@contextlib.contextmanager
def before():
    with patched(schedule_mma, "MIN_MN", 32), patched(pad_columns, "column_axis", column_axis_before), \
            patched(blockify_launch, "column_axis", column_axis_before):
        yield


if __name__ == "__main__":
    C = sweep.matmul_case
    seed8 = {c.name: c for c in sweep.all_cases(seed=8)}
    cases = [C(31, 3001, 997, "tn"), seed8["bmm_tn_b8_23x2741x2816"], seed8["matmul_tt_19x3793x1088"],
             C(1, 1024, 128, "nn", batch=32), C(1, 128, 2048, "nn", batch=16), C(1, 4096, 128, "nn", batch=32),
             C(1, 4096, 4096, "nn"), C(1, 1000, 3000, "nn", batch=3), C(25, 1381, 101, "tt", batch=21)]
    variants = {"before": before, "tree": None}
    rows = time_variants(cases, variants, "eager", 20.0, 32)
    report(rows, list(variants), "eager", 32, None)
