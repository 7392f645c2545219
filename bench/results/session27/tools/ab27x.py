"""Session 27 (issue 13, device): how far fuse-loops should fuse a column norm now that
blockify-launch holds a long column on up to 32 lanes, over the column norms and softmax of
257-1024 channels (fuselist.txt), eager in the same process:

  tree      fused up to 512 channels (max-column-reduce), lanes held from 24 trips
  f1024     fused up to 1024
  f1024m16  fused up to 1024, a wide block's column held from 16 trips (hold-rows
            column-trips 16, blockify_launch.COLUMN_WIDE_MIN_TRIPS 16)

    python3 bench/results/session27/tools/ab27x.py LIST [JSON]
Ran in call 4 with the experiment's blockify_launch.COLUMN_WIDE_MIN_TRIPS (24 in the tree
then); f1024m16 became the tree (hold-rows long-column-trips 16), so that name no longer exists."""
import sys
from contextlib import ExitStack, contextmanager

sys.path.insert(0, "bench/results/session27/tools")
from common27 import cases_of, fuse_reach  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import blockify_launch as bl, schedule_classes as sc  # noqa: E402


@contextmanager
def reach(n: int, min_trips: int | None = None):
    old_row = sc.PIPELINES["row reduction"]
    try:
        with fuse_reach(n), ExitStack() as stack:
            if min_trips:
                sc.PIPELINES["row reduction"] = old_row.replace("hold-rows,", f"hold-rows{{{{column-trips={min_trips}}}}},")
                stack.enter_context(patched(bl, "COLUMN_WIDE_MIN_TRIPS", min_trips))
            yield
    finally:
        sc.PIPELINES["row reduction"] = old_row


listing, out = sys.argv[1], (sys.argv[2] if len(sys.argv) > 2 else None)
cases = cases_of(listing)
variants = {"tree": None, "f1024": lambda: reach(1024), "f1024m16": lambda: reach(1024, 16)}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, out)
