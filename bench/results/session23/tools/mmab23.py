"""Session 23 (issue 13, device): the matmul model's short-K / misaligned-K terms, A/B. Variants:
the model as it was ("before": a tensor-core tile staging rows not a multiple of 16 bytes along K
scaled by ELEMENT_TRIP 1.6, a padded tile's block 5 K steps more), "e1" (that tile not scaled:
materialize-mma's k-run fill reads such rows coalesced) and "e1f44" (and a padded block 4.4 K
steps more). The cases are the sweep programs of SEEDS whose tile IR a variant changes
(mmchanged.txt, from mmchanged.py); eager in the same process (bench/ab.py).

    python3 bench/results/session23/tools/mmab23.py SEEDS [JSON]
Ran on 2bdf269 with a temporary constant, `MMA_ELEMENT_TRIP = ELEMENT_TRIP` in transforms/tile/
schedule.py, in place of ELEMENT_TRIP where modeled_us scales a tensor-core tile; the change lost
(call2-mmab.txt) and was not kept, so this script needs that constant back to run."""
import contextlib
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import schedule, schedule_mma  # noqa: E402

seeds = {int(s) for s in sys.argv[1].split(",")}
found = [(int(s), n) for s, n, *_ in (line.split() for line in open("bench/results/session23/mmchanged.txt")) if int(s) in seeds]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]


@contextlib.contextmanager
def model(element: float, block_steps: float):
    with patched(schedule, "MMA_ELEMENT_TRIP", element), patched(schedule_mma, "PADDED_BLOCK_STEPS", block_steps):
        yield


variants = {"before": lambda: model(1.6, 5.0), "e1": lambda: model(1.0, 5.0), "e1f44": lambda: model(1.0, 4.4)}
rows = time_variants(cases, variants, "eager", 20.0, 32, modes=("eager",))
report(rows, list(variants), "eager", 32, sys.argv[2] if len(sys.argv) > 2 else None)
