"""Session 27 (issue 13, device): two A/Bs over sweep programs of seeds 0 and 41-130, eager in the
same process:

  pw    1-D pointwise programs of an odd count (pwlist.txt): collapse-pointwise declining a tile
        of one axis ("one-axis", before 0e68ed1) against the tree (float4s and a tail kernel)
  wide  column norms and softmax of 257-1024 channels (fuselist.txt): the tree (fused up to 512
        channels, 8 lanes) against fused up to 1024 with up to 32 lanes where those hold the
        column (blockify_launch.COLUMN_WIDE_LANES 32: blocks of 512 or 1024 threads)

    python3 bench/results/session27/tools/ab27w.py pw|wide LIST [JSON]
Ran in call 3 on 0e68ed1 with COLUMN_WIDE_LANES 0 (off) in the tree; it is 32 since, so
`wide` now compares the tree with itself."""
import sys
from contextlib import contextmanager

sys.path.insert(0, "bench/results/session27/tools")
from common27 import cases_of, fuse_reach  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import blockify_launch as bl, collapse_pointwise as cp  # noqa: E402

tree_collapse = cp.collapse_pointwise


def one_axis_declined(t, width, min_tail_bytes):
    return "the tile has one axis" if len(t.axes) < 2 else tree_collapse(t, width, min_tail_bytes)


@contextmanager
def wide():
    with fuse_reach(1024), patched(bl, "COLUMN_WIDE_LANES", 32):
        yield


what, listing = sys.argv[1], sys.argv[2]
out = sys.argv[3] if len(sys.argv) > 3 else None
cases = cases_of(listing)
if what == "pw":
    variants = {"one-axis": lambda: patched(cp, "collapse_pointwise", one_axis_declined), "tree": None}
else:
    variants = {"tree": None, "wide": wide}
rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, out)
