"""Session 46 (device): kernels compiled with NVRTC's --fmad=false (no multiply-add contracted:
each product rounded, as the CPU executors and PyTorch's separate eager kernels do) against the
default (NVRTC contracts what it chooses), on the suite's operator cases and an unseen sweep
seed, against eager in the same process. (Call 2 timed a variant since dropped, the printer
contracting every add of a product itself under --fmad=false: 1.774x eager against 1.763x on the
suite; it did not fix linalg_inv_det_solve, whose product is recomputed inline in one kernel and
read rounded from a buffer in the other.)

    python3 bench/results/session46/tools/fma46.py [--only suite|sweep] [--cases REGEX] [--seed N] [JSON]"""
import re
import sys
from contextlib import contextmanager

sys.path.insert(0, "bench")
import suite  # noqa: E402
import sweep  # noqa: E402
from dpl.backend import runtime  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402


@contextmanager
def fmad_false():
    old = runtime.compile_cuda.__defaults__
    runtime.compile_cuda.__defaults__ = tuple(
        (*d, "--fmad=false") if isinstance(d, tuple) and "--std=c++17" in d else d for d in old)
    try:
        yield
    finally:
        runtime.compile_cuda.__defaults__ = old


class SuiteCase:
    def __init__(self, case):
        self.name, self.case = case.name, case

    def build(self, device):
        return self.case.make()


args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
seed = int(args[args.index("--seed") + 1]) if "--seed" in args else 46
only = args[args.index("--only") + 1] if "--only" in args else ""
rest = [a for i, a in enumerate(args) if not a.startswith("--") and args[i - 1] not in ("--cases", "--seed", "--only")]
cases = ([SuiteCase(c) for c in suite.CASES if "decoder" not in c.tags] if only != "sweep" else []) + (
    sweep.all_cases(seed, per_class=2) if only != "suite" else [])
cases = [c for c in cases if re.search(pat, c.name)]
rows = time_variants(cases, {"nvcc": None, "fmad_false": fmad_false}, "eager", 20.0, 36)
report(rows, ["nvcc", "fmad_false"], "eager", 36, rest[0] if rest else None)
