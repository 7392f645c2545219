"""Session 32 (issue 13): the tree with this session's changes turned off, for the A/Bs
(`dpl.bench.ab` variants): `old_collapse` (no collapse-matmul-axes: a contraction whose M or N
spans several loops stays so, and so on SIMT), `old_pad` (padding by a concat per dim), `start`
(both)."""
from contextlib import contextmanager

from dpl.bench.ab import patched
from dpl.dialects import tensor as T
from dpl.transforms.decompose.common import elem_of, shape_of
from dpl.transforms.decompose import windows
from dpl.transforms.loop import collapse_matmul_axes


@contextmanager
def old_collapse():
    """collapse-matmul-axes leaving every kernel as it is (the tree before it)."""
    with patched(collapse_matmul_axes.CollapseMatmulAxes, "apply", lambda self, ctx, op: None):
        yield


def _concat_pad(em, x, pads, value):
    """The tree's pad before session 32: a concat of splat blocks per padded dim."""
    shape = list(shape_of(x))
    lead = len(shape) - len(pads)
    for i, p in enumerate(pads):
        if not p:
            continue
        dim = lead + i
        block = list(shape)
        block[dim] = p
        fill = em.elementwise([], elem_of(x), block, lambda s: s.const(value), hint="pad")
        x = em._one(T.ConcatOp([fill, x, fill], dim), "padded")
        shape[dim] += 2 * p
    return x


@contextmanager
def old_pad():
    """Convolution and pooling inputs padded by concats, one per dim (the tree before)."""
    with patched(windows, "pad", _concat_pad):
        yield


@contextmanager
def start():
    """The tree at the session's start: no collapse-matmul-axes, padding by concats."""
    with old_collapse(), old_pad():
        yield
