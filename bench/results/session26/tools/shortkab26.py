"""Session 26 (issue 13, device): a short K (fewer than schedule.RACE_MIN_STEPS steps of 32, no thin
side) left to SIMT ("simt": the tensor-core candidates drop out; the SIMT tile ranked first takes
the better rank of the two) against the tree ("tree": the old models decide), over the 3 sweep
programs of seeds 0 and 41-63 it changes (shortkchanged.txt). Call 4 measured SIMT fastest on 8
of 10 short-K matmuls; the two the tensor cores won are SIMT by default and unchanged.

    python3 bench/results/session26/tools/shortkab26.py [JSON]
    python3 bench/results/session26/tools/shortkab26.py --final [JSON]

--final (call 9): the rule as kept (schedule.SIMT_MAX_STEPS = 2: at most 2 K steps) against
SIMT_MAX_STEPS 0 ("old") over the programs of seeds 0 and 41-73 it changes (the two K = 64 cliffs
of call 8 and matmul_tt 269x5547x64 of seed 69)."""
import math
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import schedule as S  # noqa: E402
from dpl.transforms.tile.schedule_mma import MmaChoice, mma_launch, mma_tile  # noqa: E402

tree_race = S.Schedule.race_waves


def race_short_k_simt(self, name, tried, rank, smem):
    tc = [i for i, t in enumerate(tried) if isinstance(t[4], MmaChoice) and rank[i] < math.inf]
    simt = [i for i, t in enumerate(tried) if isinstance(t[4], S.MatmulTile) and rank[i] < math.inf]
    if tc and simt:
        i = min(tc, key=lambda i: (rank[i], i))
        t = mma_tile(tried[i][2])
        launch = None if t is None else mma_launch(t)
        if launch is not None and not tried[i][4].thin and launch.trips * launch.splits < S.RACE_MIN_STEPS:
            j = min(simt, key=lambda i: (rank[i], i))
            best = min(rank[i], rank[j])
            for k in tc:
                rank[k] = math.inf
            rank[j] = best
            return
    return tree_race(self, name, tried, rank, smem)


if __name__ == "__main__":
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    if "--final" in sys.argv:
        found = [(42, "bmm_tn_b32_509x983x64"), (62, "matmul_tn_1472x1201x64"), (69, "matmul_tt_269x5547x64")]
        variants = {"old": lambda: patched(S, "SIMT_MAX_STEPS", 0), "tree": None}
    else:
        found = [(int(s), n) for s, n, *_ in (line.split() for line in open("bench/results/session26/shortkchanged.txt"))]
        variants = {"tree": None, "simt": lambda: patched(S.Schedule, "race_waves", race_short_k_simt)}
    cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
    rows = time_variants(cases, variants, "eager", 20.0, 32, modes=("eager",))
    report(rows, list(variants), "eager", 32, args[0] if args else None)
