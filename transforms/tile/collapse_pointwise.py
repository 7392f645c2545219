"""collapse-pointwise: run a pointwise tile whose buffers all share its layout as one flat axis.

A pointwise tile (what vectorize-pointwise takes) of several axes whose fastest extent E is not
a multiple of `width` cannot give a thread `width` consecutive elements of a row: rows of 16411
floats do not start on 16-byte boundaries. Where every access reads or writes its buffer at
exactly the tile's row-major position (the buffer holds as many elements as the tile has points,
and its row-major offset is `a0 * 16411 + a1`: no broadcast, no transpose, no slice), the rows
need not be kept apart: the axes become one axis `%f` over all N points, and each access indexes
its buffer at the row-major indices of `%f` (`transforms.tile.common.delinearize`):

    tile.tile (%a0 : 16384 = thread, %a1 : 16411 = thread) {
      %v = loop.load %x[%a0, %a1] ...  loop.store %r, %y[%a0, %a1]
    }
 -> tile.tile (%f : 268877824 = thread) {
      %v = loop.load %x[%f floordiv 16411, %f mod 16411] ...
      loop.store %r, %y[%f floordiv 16411, %f mod 16411]
    }

The tile visits the same points, each once, and each access reads the same element, so meaning
is kept. Then N, not E, decides the vector width: vectorize-pointwise gives each thread 4
consecutive values of `%f` when N is a multiple of 4, and flatten-buffers (after materialize)
reads such buffers as 1-D, so `x[f]` becomes one float4 (`x[f_v * 4]`), with no division per
element.

Declines (logged to `dpl.passes`) what vectorize-pointwise declines for its form (a block or
cell axis, a reduce loop, a collective op, a loop at the top of the body), a tile of one axis,
one whose fastest extent `width` divides (vectorize-pointwise takes it as it is), one whose N
`width` does not divide (it would stay one element per thread either way), an axis used other
than as an access index, and an access whose buffer has another element count than the tile or
whose offset is not the tile's row-major position (a broadcast `bias[%a1]`, a transpose).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr, MemRefType, ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass

from dpl.dialects import loop, tile
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, delinearize, linear, rebuild_tile, with_map
from dpl.transforms.tile.matmul import fold_applies, for_each_tile
from dpl.transforms.tunable import tunable
from dpl.transforms.tile.vectorize_pointwise import ACCESSES, pointwise_declines


def _row_major(shape: list[int]) -> list[int]:
    return [math.prod(shape[i + 1 :]) for i in range(len(shape))]


def _access_declines(op: loop.LoadOp | loop.StoreOp, strides: dict[SSAValue, int], n: int) -> str | None:
    """Why the access `op` does not read its buffer at the tile's row-major position (`strides`:
    each axis's row-major stride in the tile of `n` points), or None."""
    what = f"the access to %{op.memref.name_hint or '?'}"
    ty = op.memref.type
    assert isinstance(ty, MemRefType)
    shape = list(ty.get_shape())
    if math.prod(shape) != n:
        return f"{what} has {math.prod(shape)} elements, not the tile's {n} (a broadcast or a slice)"
    offset: AffineExpr = AffineConstantExpr(0)
    for index, stride in zip(op.map.data.results, _row_major(shape)):
        offset = offset + index * stride
    form = linear(offset, list(op.indices))
    if form is None or form[1] != 0 or {a: c for a, c in form[0].items() if a in strides} != strides:
        return f"{what} is not at the tile's row-major position"
    return None


def collapse_pointwise(t: tile.TileOp, width: int) -> str | None:
    """Rewrite `t` as the module docstring says; None if done, else why not."""
    why = pointwise_declines(t)
    if why is not None:
        return why
    if len(t.axes) < 2:
        return "the tile has one axis"
    extents = [e for _, e, _ in t.axes]
    n = math.prod(extents)
    if extents[-1] % width == 0:
        return f"its fastest axis of {extents[-1]} is a multiple of {width} (vectorize-pointwise takes it as it is)"
    if n % width:
        return f"its {n} elements are not a multiple of {width}"
    fold_applies(t)
    axes = list(t.body.block.args)
    for a in axes:
        for use in a.uses:
            if not isinstance(use.operation, ACCESSES):
                return f"an axis is used by {use.operation.name}, not only as an access index"
    accesses = [op for op in t.walk() if isinstance(op, ACCESSES)]
    strides = {a: s for a, s, e in zip(axes, _row_major(extents), extents) if e > 1}
    for op in accesses:
        why = _access_declines(op, strides, n)
        if why is not None:
            return why

    def replacement(block: Block):
        # Each old axis as an index of %f (only until the accesses are rewritten below).
        ops = [affine.ApplyOp([block.args[0]], AffineMapAttr(AffineMap(1, 0, (e,))))
               for e in delinearize(AffineDimExpr(0), extents)]  # fmt: skip
        return [op.result for op in ops], ops

    new = rebuild_tile(t, [(n, tile.AxisKind.THREAD, "f")], replacement)
    flat = new.body.block.args[0]
    for op in [o for o in new.walk() if isinstance(o, ACCESSES)]:
        shape = op.memref.type.get_shape()  # type: ignore[union-attr]
        with_map(op, [flat], AffineMap(1, 0, tuple(delinearize(AffineDimExpr(0), shape))))
    fold_applies(new)  # erases the helper applies, now unused
    return None


@dataclass(frozen=True)
class CollapsePointwise(ModulePass):
    """Run a pointwise tile whose accesses all follow its own row-major layout as one flat axis."""

    name = "collapse-pointwise"

    width: int = tunable(4, (1, 2, 4))
    """vectorize-pointwise's width (one tuning dimension with it): a tile whose fastest extent it divides is
    left as it is, and one whose element count it does not divide too."""

    def __post_init__(self):
        check_option(self, "width", 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for where, reason in for_each_tile(op, lambda t: collapse_pointwise(t, self.width)):
            if reason is None:
                LOG.info("collapse-pointwise: %s: one flat axis", where)
            else:
                LOG.info("collapse-pointwise: declined %s: %s", where, reason)
