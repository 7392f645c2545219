"""Session 27 (issue 13, device): three A/Bs over sweep programs of seeds 0 and 41-130, eager in
the same process.

  col   column norms and softmax (a reduce, then passes over the same column): 8 lanes (the
        tree) against `column_norm_lanes` (COLUMN_HOLD_TRIPS 32, fill 1, 1/2, 1/4 of the GPU);
        the programs it changes (colchanged.txt)
  floor split-reduce splitting into floor(blocks at once / blocks) rather than the ceiling
        (floorchanged.txt, a sample)
  fuse  fuse-loops' max-column-reduce 256 (the tree) against 1024: column norms of 257-1024
        channels in one kernel

    python3 bench/results/session27/tools/ab27.py col|floor|fuse LIST [JSON] [N]

LIST: lines `seed name ...`; N: the first N of them.
Ran in call 1 on the tree before 523b041: `col` patches the experiment's switches
(blockify_launch.COLUMN_HOLD_TRIPS, COLUMN_NORM_FILL) that column_norm_lanes replaced, and
`floor` split_reduce.SPLIT_FLOOR, which d5e730b made the rule; they no longer exist."""
import sys
from contextlib import contextmanager, ExitStack

sys.path.insert(0, "bench/results/session27/tools")
from common27 import cases_of, fuse_reach  # noqa: E402
from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.transforms.tile import blockify_launch as bl, split_reduce as sr  # noqa: E402


@contextmanager
def several(*patches):
    with ExitStack() as stack:
        for owner, name, value in patches:
            stack.enter_context(patched(owner, name, value))
        yield


what, listing = sys.argv[1], sys.argv[2]
out = sys.argv[3] if len(sys.argv) > 3 else None
limit = int(sys.argv[4]) if len(sys.argv) > 4 else 10**9
cases = cases_of(listing, limit)
if what == "col":
    variants = {"tree8": None}
    for fill in (1.0, 0.5, 0.25):
        variants[f"h32f{fill}"] = lambda f=fill: several((bl, "COLUMN_HOLD_TRIPS", 32), (bl, "COLUMN_NORM_FILL", f))
elif what == "floor":
    variants = {"ceil": None, "floor": lambda: patched(sr, "SPLIT_FLOOR", True)}
else:
    variants = {"c256": None, "c1024": lambda: fuse_reach(1024)}


rows = time_variants(cases, variants, "eager", 20.0, 34, modes=("eager",))
report(rows, list(variants), "eager", 34, out)
