"""Session 27 (issue 13, device): the tree's three changes against the rules before them, on
sweep programs call 1 did not time (held out: the rest of colchanged.txt, fuselist.txt and a
sample of floorchanged.txt), eager in the same process:

  old  column norms on 8 lanes (column_norm_lanes -> most), fuse-loops' max-column-reduce 256,
       split-reduce's ceiling
  col  only column norms on 8 lanes; fuse only max-column-reduce 256; floor only the ceiling
  new  the tree

    python3 bench/results/session27/tools/ab27v.py LIST [JSON]"""
import sys
from contextlib import ExitStack, contextmanager

sys.path.insert(0, "bench/results/session27/tools")
from common27 import cases_of, fuse_reach  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import blockify_launch as bl, split_reduce as sr  # noqa: E402


def eight_lanes(column, outputs, most, sms):
    return most


def ceil_plan(blocks, trips, p):
    at_once = p.sms * p.blocks_per_sm
    if blocks >= at_once:
        return "fills"
    splits = min(-(-at_once // blocks), trips // p.min_trips)
    return splits if splits >= 2 else "short"


@contextmanager
def old(col=True, fuse=True, floor=True):
    with ExitStack() as stack:
        if col:
            stack.enter_context(patched(bl, "column_norm_lanes", eight_lanes))
        if fuse:
            stack.enter_context(fuse_reach(256))
        if floor:
            stack.enter_context(patched(sr, "_plan", ceil_plan))
        yield


listing, out = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
cases = cases_of(listing)
variants = {"old": lambda: old(), "new": None}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, out)
