"""Session 32 (issue 13): the tree with this session's changes turned off, for the A/Bs
(`dpl.bench.ab` variants): `old_collapse` (no collapse-matmul-axes: a contraction whose M or N
spans several loops stays so, and so on SIMT)."""
from contextlib import contextmanager

from dpl.bench.ab import patched
from dpl.transforms.loop import collapse_matmul_axes


@contextmanager
def old_collapse():
    """collapse-matmul-axes leaving every kernel as it is (the tree before it)."""
    with patched(collapse_matmul_axes.CollapseMatmulAxes, "apply", lambda self, ctx, op: None):
        yield
