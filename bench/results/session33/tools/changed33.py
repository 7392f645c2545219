"""Session 33: which programs a schedule rule changes (tile IR, meta device, no GPU): the sweep's
seeds given, ordinary32 and ordinary33, under a variant that turns `_window_rows` off.

    python3 bench/results/session33/tools/changed33.py SEEDS     # e.g. 81,83"""
import sys
from contextlib import contextmanager

sys.path.insert(0, "bench/results/session33/tools")
sys.path.insert(0, "bench/results/session32/tools")
sys.path.insert(0, "bench")
import ordinary32  # noqa: E402
import ordinary33  # noqa: E402
import sweep  # noqa: E402
from dpl.bench.ab import changed, patched  # noqa: E402
from dpl.transforms.tile import blockify_launch  # noqa: E402


@contextmanager
def no_window_rows():
    with patched(blockify_launch, "_window_rows", lambda *a: False):
        yield


cases = [c for s in sys.argv[1].split(",") for c in sweep.all_cases(int(s))] + ordinary32.CASES + ordinary33.CASES
for case in changed(cases, no_window_rows, level="tile"):
    print(case.name, flush=True)
