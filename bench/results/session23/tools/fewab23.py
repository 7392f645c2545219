"""Session 23 (issue 13, device): few rows passed over more than once (norms, softmax) take the
lanes that pass over each row in at most schedule.FEW_ROW_TRIPS trips, 256 to 1024, against
256 lanes always (before). The cases are the sweep programs of seeds 0-49 whose tile IR the rule
changes (fewchanged.txt, from fewchanged.py) and few-row norms and softmaxes of session 17's
rows_ab and more; eager in the same process (bench/ab.py).

    python3 bench/results/session23/tools/fewab23.py [JSON]"""
import sys

sys.path.insert(0, "bench")
import sweep  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import schedule  # noqa: E402

found = [(int(s), n) for s, n, *_ in (line.split() for line in open("bench/results/session23/fewchanged.txt"))]
cases = [next(c for c in sweep.all_cases(seed=s) if c.name == n) for s, n in found]
cases += [sweep.norm_case("layernorm", (32, 1024), 1), sweep.norm_case("rmsnorm", (128, 4096), 1),
          sweep.norm_case("layernorm", (300, 5000), 1), sweep.softmax_case((100, 3000), -1),
          sweep.softmax_case((64, 6000), -1), sweep.norm_case("layernorm", (16, 64, 100), 2),
          sweep.norm_case("rmsnorm", (8, 12000), 1), sweep.softmax_case((256, 2500), -1)]
variants = {"256 lanes": lambda: patched(schedule, "FEW_ROW_TRIPS", 10**9), "few-row lanes": None}
rows = time_variants(cases, variants, "eager", 20.0, 32, modes=("eager",))
report(rows, list(variants), "eager", 32, sys.argv[1] if len(sys.argv) > 1 else None)
