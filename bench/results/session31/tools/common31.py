"""Session 31 (issue 13): the tree with this session's changes turned off, for the A/Bs
(`dpl.bench.ab` variants): `old_merge` (no merge-dims), `old_tail` (a pointwise tail kernel only
from 36 MB, the old min-tail-bytes, and a launch of its own), `old_restrict` (buffer parameters
printed without `__restrict__`)."""
from contextlib import ExitStack, contextmanager

from dpl.backend import cuda_printer
from dpl.bench.ab import patched
from dpl.transforms.kernel import fuse_launches
from dpl.transforms.loop import merge_dims
from dpl.transforms.tile import collapse_pointwise as cp

_collapse = cp.collapse_pointwise


@contextmanager
def old_merge():
    """merge-dims leaving every kernel as it is (the tree before it)."""
    with patched(merge_dims.MergeDims, "apply", lambda self, ctx, op: None):
        yield


@contextmanager
def old_tail():
    """Tails from 36 MB (the old default min-tail-bytes), each its own launch (no tail fusion)."""
    with ExitStack() as stack:
        stack.enter_context(patched(cp, "collapse_pointwise", lambda t, width, _: _collapse(t, width, 36_000_000)))
        stack.enter_context(patched(fuse_launches, "_tail_pair", lambda p, q: False))
        yield


@contextmanager
def old_restrict():
    """Buffer parameters printed without `__restrict__` (the tree before it)."""
    with patched(cuda_printer, "RESTRICT", False):
        yield
