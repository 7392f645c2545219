"""Session 47 (device): dpl's arithmetic as written (NVRTC --fmad=false, the default since this
session; the multiply-adds of reductions and flash attention written as math.fma in the IR by
contract-accumulations and the attention builders) against NVRTC contracting what it chooses
(the same code compiled without --fmad=false: the defaults before this session), on the suite's
operator cases and sweep seed 46 (session 46's call 4 set), against eager in the same process.

    python3 bench/results/session47/tools/fma47.py [--only suite|sweep] [--cases REGEX] [--seed N] [JSON]"""
import re
import sys
from contextlib import contextmanager

sys.path.insert(0, "bench")
import suite  # noqa: E402
import sweep  # noqa: E402
from dpl.backend import runtime  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402


@contextmanager
def nvrtc_contracts():
    old = runtime.compile_cuda.__defaults__
    runtime.compile_cuda.__defaults__ = tuple(
        tuple(o for o in d if o != "--fmad=false") if isinstance(d, tuple) and "--fmad=false" in d else d
        for d in old)  # fmt: skip
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
assert "--fmad=false" in runtime.DEFAULT_OPTIONS
rows = time_variants(cases, {"nvrtc_contracts": nvrtc_contracts, "as_written": None}, "eager", 20.0, 36)
report(rows, ["nvrtc_contracts", "as_written"], "eager", 36, rest[0] if rest else None)
