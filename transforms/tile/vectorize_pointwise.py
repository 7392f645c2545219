"""vectorize-pointwise: give each thread of a pointwise tile `width` consecutive elements.

A pointwise tile (thread axes only, no reduce loop, no stage or combine: what tileify makes of an
elementwise kernel) whose fastest axis `%a` of extent E is read and written only as the
innermost index of f32 buffers, with coefficient 1 and everything else in that index a multiple
of `width`, gets a thread axis of E / width and a free loop of `width` trips around its body:

    tile.tile (%a0 : 128 = thread, %a1 : 18944 = thread) {
      %v = loop.load %x[%a0, %a1] ...  loop.store %r, %y[%a0, %a1]
    }
 -> tile.tile (%a0 : 128 = thread, %a1_v : 4736 = thread) {
      loop.for free %a1_l < 4 {
        %v = loop.load %x[%a0, %a1_v * 4 + %a1_l] ...  loop.store %r, %y[%a0, %a1_v * 4 + %a1_l]
      }
    }

The (thread, loop) pair covers the same elements as the old axis, each once, so meaning is kept.
After materialize the loop is a `kernel.for` over 4 consecutive floats of each buffer, which
vectorize-access turns into one 16-byte access per buffer (LDG.128 / STG.128, a quarter of the
memory instructions of one float per thread). Run it before blockify-launch.

Declines (logged to `dpl.passes`) a tile with a block or cell axis, a reduce loop, a collective
op or a loop at the top of its body; whose fastest axis is not a multiple of `width` or leaves
fewer than `min-threads` threads (default: a warp per multiprocessor of the module's
#kernel.target); or with an access that could not become one vector access (the
axis in another index or in an index computed by ops from it, with a coefficient other than 1,
beside a term that is not a multiple of `width`, or in a buffer that is not f32 with an
innermost extent that `width` divides). An access whose index does not use the axis (a weight
per channel, `w[%a1]` of an NCHW product) reads one element for all `width`: it stays a scalar
and does not stop the others.

collapse-pointwise's flat accesses (`%x[%f floordiv 16411, %f mod 16411]`, one offset `%f` into
the whole buffer, which flatten-buffers makes 1-D: rows no longer matter) count as indexed by
`%f` alone, and so does any access of a 1-D buffer: its extent need not be a multiple of
`width` where the tile's axis is (the first 81225328 of 81225329 floats, the last one in
collapse-pointwise's tail kernel). A load that is none of these but reads a broadcast buffer
(fewer elements than the tile, f32, global, not stored by the tile: a bias along an odd last
dim, `%bias[%f mod 9889]`)
is marked `tile.gather` and read once per element of the group, beside the vector accesses of
the others (there must be one).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

from xdsl.context import Context
from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr, Float32Type, MemRefType, ModuleOp
from xdsl.ir import Block
from xdsl.ir.affine import AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import loop, tile
from dpl.dialects.loop import IterKind
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, axis_deps, flat_offset, linear
from dpl.transforms.tile.matmul import fold_applies, for_each_tile
from dpl.transforms.tile.target import target_sms
from dpl.transforms.tunable import tunable

ACCESSES = (loop.LoadOp, loop.StoreOp)


def _access_declines(op: loop.LoadOp | loop.StoreOp, axis, deps, width: int) -> str | None:
    """Why the access `op` could not be one `width`-wide vector access along `axis`, or None
    (`deps` gives the tile axes a value depends on)."""
    what = f"the access to %{op.memref.name_hint or '?'}"
    if any(v is not axis and axis in deps(v) for v in op.indices):
        return f"{what} has an index computed from it"
    dims = {i for i, v in enumerate(op.indices) if v is axis}
    if not any(expr.used_dims() & dims for expr in op.map.data.results):
        return None  # the same element for all `width` of them (a broadcast: a weight per channel)
    ty = op.memref.type
    assert isinstance(ty, MemRefType)
    if not isinstance(ty.element_type, Float32Type):
        return f"{what} is not f32"
    flat = flat_offset(op.map.data.results, ty.get_shape())
    if flat is not None:  # collapse-pointwise's form (or a 1-D buffer): one offset from its aligned base
        return _contiguous_declines(what, flat, op, axis, width)
    if ty.get_shape()[-1] % width:
        return f"{what} has an innermost extent of {ty.get_shape()[-1]}, not a multiple of {width}"
    *outer, inner = op.map.data.results
    if any(expr.used_dims() & dims for expr in outer):
        return f"{what} indexes it outside the innermost dim"
    return _contiguous_declines(what, inner, op, axis, width)


def _contiguous_declines(what: str, index: AffineExpr, op: loop.LoadOp | loop.StoreOp, axis, width: int) -> str | None:
    """Why `index` (the innermost or the flat index of `op`) is not `axis` plus multiples of
    `width`, or None."""
    form = linear(index, list(op.indices))
    if form is None or form[0].get(axis) != 1:
        return f"{what} does not index the innermost dim by it with coefficient 1"
    rest = [c for v, c in form[0].items() if v is not axis] + [form[1]]
    if any(c % width for c in rest):
        return f"{what} adds a term that is not a multiple of {width} to it"
    return None


def pointwise_declines(t: tile.TileOp) -> str | None:
    """Why `t` is not a pointwise tile in the form this pass (and collapse-pointwise) takes, or None."""
    if any(k != tile.AxisKind.THREAD for _, _, k in t.axes):
        return "the tile already has block or cell axes (run before blockify-launch)"
    for op in t.walk():
        if isinstance(op, loop.ForOp) and op.is_reduce:
            return "the tile holds a reduce loop (not pointwise)"
        if isinstance(op, tile.StageOp | tile.CombineOp | tile.StridedForOp | tile.AtomicOp):
            return f"the tile holds {op.name}"
    if any(isinstance(op, loop.ForOp) for op in t.body.block.ops):
        return "the tile body holds a loop (blockify-launch spreads a long one over lanes)"
    return None


def vectorize_pointwise(t: tile.TileOp, width: int, min_threads: int) -> str | None:
    """Rewrite `t` as the module docstring says; None if done, else why not."""
    why = pointwise_declines(t)
    if why is not None:
        return why
    fold_applies(t)  # an index `affine.apply`d from the axis is read in the access's map
    axis, extent, _ = t.axes[-1]
    threads = math.prod(e for _, e, _ in t.axes)
    if extent % width:
        return f"its fastest axis of {extent} is not a multiple of {width}"
    if threads // width < min_threads:
        return f"{threads} elements leave fewer than min-threads = {min_threads} threads"
    deps = axis_deps(t)
    gathers: list[loop.LoadOp] = []
    vectors = 0
    for op in t.walk():
        if isinstance(op, ACCESSES):
            why = _access_declines(op, axis, deps, width)
            if why is not None and not _gathers(op, t, threads):
                return why
            if why is not None:
                gathers.append(op)  # type: ignore[arg-type]
            elif any(axis in deps(v) for v in op.indices):
                vectors += 1
    if gathers and not vectors:
        return "no access but broadcast ones is one vector access"

    # The old body moves into a free loop of `width` trips; the old axis is `%a_v * width + %a_l`.
    name = axis.name_hint or f"a{len(t.axes) - 1}"
    body = Block(arg_types=[axis.type])
    body.args[0].name_hint = f"{name}_l"
    new = tile.TileOp([(e if v is not axis else e // width, k) for v, e, k in t.axes])
    for old_arg, new_arg in zip(t.body.block.args, new.body.block.args):
        new_arg.name_hint = old_arg.name_hint if old_arg is not axis else f"{name}_v"
        if old_arg is not axis:
            old_arg.replace_all_uses_with(new_arg)
    amap = AffineMap(2, 0, (AffineDimExpr(0) * width + AffineDimExpr(1),))
    index = affine.ApplyOp([new.body.block.args[-1], body.args[0]], AffineMapAttr(amap))
    index.result.name_hint = name
    body.add_op(index)
    axis.replace_all_uses_with(index.result)
    for op in list(t.body.block.ops):
        op.detach()
        body.add_op(op)
    body.add_op(loop.YieldOp())
    new.body.block.add_op(loop.ForOp(IterKind.FREE, width, body))
    new.attributes |= t.attributes
    Rewriter.replace_op(t, new)
    for op in gathers:
        tile.mark_gather(op)
    fold_applies(new)
    return None


def _gathers(op: loop.LoadOp | loop.StoreOp, t: tile.TileOp, points: int) -> bool:
    """Whether `op`, which cannot be one vector access, may be read once per lane instead: a
    load of a global f32 buffer of fewer elements than the tile has points (a broadcast, a bias
    along an odd last dim: re-read from cache, a small share of the traffic) that the tile does
    not store to."""
    ty = op.memref.type
    assert isinstance(ty, MemRefType)
    return (
        isinstance(op, loop.LoadOp) and isinstance(ty.element_type, Float32Type)
        and not tile.is_smem(op.memref) and math.prod(ty.get_shape()) < points
        and not any(isinstance(o, loop.StoreOp) and o.memref is op.memref for o in t.walk())
    )  # fmt: skip


@dataclass(frozen=True)
class VectorizePointwise(ModulePass):
    """Give each thread of a pointwise tile `width` consecutive elements of its fastest axis."""

    name = "vectorize-pointwise"

    width: int = tunable(4, (1, 2, 4))
    min_threads: int | None = None
    """The fewest threads to leave (default: a warp per multiprocessor of the module's
    #kernel.target): a small tile stays one element per thread, so that it spreads over the GPU."""

    def __post_init__(self):
        check_option(self, "width", 1)
        check_option(self, "min_threads", 0)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.min_threads is None:
            return replace(self, min_threads=32 * target_sms(None, op)).apply(ctx, op)
        vectorize = lambda t: vectorize_pointwise(t, self.width, self.min_threads)  # noqa: E731
        for where, reason in for_each_tile(op, vectorize):
            if reason is None:
                LOG.info("vectorize-pointwise: %s: %d elements per thread", where, self.width)
            else:
                LOG.info("vectorize-pointwise: declined %s: %s", where, reason)
