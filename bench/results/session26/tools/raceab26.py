"""Session 26 (issue 13, device): SIMT and the tensor cores raced at their wave models ("race",
the tree: schedule.RACE_MARGIN) against the old models ("old", RACE_MARGIN None), over the sweep
programs of seeds 0 and 41-61 whose tile IR it changes (racechanged.txt, from session 25's patchchanged.py)
and the two suite cases it changes (suiterace.txt: linear 3584 -> 512 at seq 128, TinyLlama's
layer at seq 512, whose k and v projections are 512 x 2048 -> 256); eager in the same process.

    python3 bench/results/session26/tools/raceab26.py [JSON]
    python3 bench/results/session26/tools/raceab26.py --heldout [JSON]

--heldout (call 3, the race's final form with its thin and short-K gates): the programs of unseen
seeds 62-73 it changes (racechanged-heldout.txt) and the two shapes whose lit tests it moves
to SIMT (128 x 2048 x 192 nt, 64 x 3389 x 300 tn); no suite cases.
--common (call 5): the 10 of 56 common projection shapes x @ W^T (M 64-4096 by N x K of 256 x 512,
512 x 512, 1024 x 1024, 4096 x 1024, 1024 x 4096, 768 x 768, 3072 x 768, 768 x 3072) whose
tile IR the race changes (bench.ab.changed, as patchchanged.py)."""
import sys

sys.path.insert(0, "bench")
import suite  # noqa: E402
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import schedule  # noqa: E402


class SuiteCase:
    def __init__(self, case):
        self.name, self.case = case.name, case

    def build(self, device):
        return self.case.make()


heldout, common = "--heldout" in sys.argv, "--common" in sys.argv
args = [a for a in sys.argv[1:] if not a.startswith("--")]
listed = "racechanged-heldout.txt" if heldout else "racechanged.txt"
found = [(int(s), n) for s, n, *_ in (line.split() for line in open(f"bench/results/session26/{listed}"))]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
if common:
    cases = [sweep.matmul_case(m, n, k, "nt") for m, n, k in (
        (64, 1024, 1024), (64, 1024, 4096), (64, 768, 3072), (128, 512, 512), (128, 1024, 4096),
        (128, 768, 768), (128, 768, 3072), (256, 256, 512), (256, 512, 512), (512, 256, 512))]
elif heldout:
    cases += [sweep.matmul_case(128, 2048, 192, "nt"), sweep.matmul_case(64, 3389, 300, "tn")]
else:
    cases += [SuiteCase(c) for c in suite.CASES if c.name in ("linear_3584x512_bias_s128", "tinyllama_layer_s512")]
variants = {"old": lambda: patched(schedule, "RACE_MARGIN", None), "race": None}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, args[0] if args else None)
