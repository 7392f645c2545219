"""Session 38: which programs collapse-matmul-axes' prologue factors change (loop IR, meta device
for the sets without random buffers, no GPU): the sweep's seeds given and the ordinary sets of
sessions 32-34 and 38, under a variant that takes a contraction of exactly two loads only (as
before).

    python3 bench/results/session38/tools/changed38.py SEEDS     # e.g. 0,91"""
import sys
from contextlib import contextmanager

for s in ("32", "33", "34", "38"):
    sys.path.insert(0, f"bench/results/session{s}/tools")
sys.path.insert(0, "bench")
import ordinary32, ordinary33, ordinary33b, ordinary34, ordinary34b, ordinary38  # noqa: E402,E401
import sweep  # noqa: E402
from dpl.bench.ab import changed, patched  # noqa: E402
from dpl.transforms.loop import collapse_matmul_axes as C  # noqa: E402


def _two_only(owns):
    return (0, 1) if len(owns) == 2 and owns[0] - owns[1] and owns[1] - owns[0] else None


@contextmanager
def two_loads_only():
    with patched(C, "_operands", _two_only):
        yield


if __name__ == "__main__":
    _build = sweep.SweepCase.build
    sweep.SweepCase.build = lambda self, device: _build(self, "cpu")  # random buffers need values
    cases = [c for s in sys.argv[1].split(",") for c in sweep.all_cases(int(s))]
    for m in (ordinary32, ordinary33, ordinary33b, ordinary34, ordinary34b, ordinary38):
        cases += m.CASES
    for case in changed(cases, two_loads_only, level="loop"):
        print(case.name, flush=True)
