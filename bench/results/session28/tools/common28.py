"""Session 28's device and host tools' shared parts: the tree before this session's short-row
change (`old_rows`: packed rows take row_lanes' lanes without the float4 preference, and
vectorize-access leaves a loop with a store guard scalar), the variants of calls 3 and 4
(`short_k`, `column_block`), and the sweep cases of a listing."""
import sys
from contextlib import ExitStack, contextmanager

from xdsl.ir import SSAValue

sys.path.insert(0, "bench")
sys.path.insert(0, "bench/results/session27/tools")
from common27 import cases_of  # noqa: E402,F401  (re-exported)
from dpl.bench.ab import patched  # noqa: E402
from dpl.dialects import loop  # noqa: E402
from dpl.transforms.kernel import vectorize_access as va  # noqa: E402
from dpl.transforms.kernel import vectorize_legality as vl  # noqa: E402
from dpl.transforms.tile import blockify_launch as bl  # noqa: E402
from dpl.transforms.tile import permute_register_tile as prt  # noqa: E402
from dpl.transforms.tile.pad_columns import column_axis  # noqa: E402
from dpl.transforms.tile.target import SM_THREADS  # noqa: E402

_row_lanes = bl.row_lanes


def _no_guards(guard, varying):
    raise vl.Decline("the body holds 'kernel.if'")


@contextmanager
def old_rows(lanes: bool = True, guards: bool = True):
    """The tree before session 28: `lanes` without the float4 preference, `guards` scalar."""
    with ExitStack() as stack:
        if lanes:
            stack.enter_context(patched(bl, "row_lanes", lambda n, rows, sms, float4=(): _row_lanes(n, rows, sms)))
        if guards:
            stack.enter_context(patched(vl, "guarded_stores", _no_guards))
            stack.enter_context(patched(va, "guarded_stores", _no_guards))
        yield


@contextmanager
def short_k(k: int):
    """permute-register-tile with its `short-k` at most `k` (the pass reads module `permute`)."""
    orig = prt.permute
    with patched(prt, "permute", lambda t, group=4, short=64: orig(t, group, min(short, k))):
        yield


@contextmanager
def column_block(size: int):
    """blockify-launch with blocks of `size` threads for a one-pass column reduction (one
    top-level loop, a column axis) whose columns 8 lanes do not fill the SMs twice with, so that
    column_lanes may take up to size / 32 lanes; every other tile as the tree."""
    orig = bl.blockify

    def wrapped(t, block_size, sms, row_trips=0):
        loops = [o for o in t.body.block.ops if isinstance(o, loop.ForOp)]
        outputs = 1
        for _, e, _ in t.axes:
            outputs *= e
        if (len(loops) == 1 and isinstance(column_axis(t), SSAValue)
                and outputs * 8 < bl.COLUMN_FILL_WAVES * sms * SM_THREADS):  # fmt: skip
            block_size = size
        return orig(t, block_size, sms, row_trips)

    with patched(bl, "blockify", wrapped):
        yield

