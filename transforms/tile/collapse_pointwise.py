"""collapse-pointwise: run a pointwise tile whose buffers follow its layout as one flat axis.

A pointwise tile (what vectorize-pointwise takes) of several axes whose fastest extent E is not
a multiple of `width` cannot give a thread `width` consecutive elements of a row: rows of 16411
floats do not start on 16-byte boundaries. Where every access reads or writes its buffer at
exactly the tile's row-major position (the buffer holds as many elements as the tile has points,
and its row-major offset is `a0 * 16411 + a1`: no transpose, no slice), or is a load broadcast
over the leading axes (a bias over the last dims: `bias[%a1]`), the rows need not be kept
apart: the axes become one axis `%f` over all N points, and each access indexes its buffer at
the row-major indices of `%f` (`transforms.tile.common.delinearize`; `%f mod 16411` for the
bias):

    tile.tile (%a0 : 16384 = thread, %a1 : 16411 = thread) {
      %v = loop.load %x[%a0, %a1] ...  %b = loop.load %bias[%a1] ...  loop.store %r, %y[%a0, %a1]
    }
 -> tile.tile (%f : 268877824 = thread) {
      %v = loop.load %x[%f floordiv 16411, %f mod 16411] ...  %b = loop.load %bias[%f mod 16411]
      loop.store %r, %y[%f floordiv 16411, %f mod 16411]
    }

The tile visits the same points, each once, and each access reads the same element, so meaning
is kept. Then N, not E, decides the vector width: vectorize-pointwise gives each thread 4
consecutive values of `%f` (the bias read once per element, `tile.gather`), and flatten-buffers
(after materialize) reads the full-shape buffers as 1-D, so `x[f]` becomes one float4
(`x[f_v * 4]`), with no division per element.

Where an access reads by the leading axes alone or with a slice of them (a norm's statistic
per row, `stat[%a0]`, beside rows of 97 floats), the whole tile cannot be one axis; the trailing
axes can, when every access follows their row-major layout (a broadcast over the leading
trailing ones allowed, a store covering them all) and their product N_t is a multiple of
`width`: the leading axes stay, the trailing ones become `%f` of N_t points, and each access that
uses them is indexed at the row-major indices of its leading axes' offset plus `%f`:

    tile.tile (%a0 : 29 = thread, %a1 : 4896 = thread, %a2 : 97 = thread) {
      %s = loop.load %stat[%a0] ...  %v = loop.load %x[%a0, %a1, %a2] ...  loop.store %r, %y[%a0, %a1, %a2]
    }
 -> tile.tile (%a0 : 29 = thread, %f : 474912 = thread) {
      %s = loop.load %stat[%a0] ...  %v = loop.load %x[(%a0 * 474912 + %f) floordiv 97, (...) mod 97] ...
    }

The fewest leading axes that allow it are kept (none: the flat form above). No tail kernel is
made for them: N_t must be a multiple of `width`.

A tile of one axis is already flat; where `width` does not divide its extent it still takes
the tail kernel below (silu(x) * y over 81225329 floats, H200 session 27: one float per thread
ran 0.57x torch.compile).

Where `width` does not divide N, the last N mod `width` points go to a second kernel `@<k>_tail`
(after this one, at flat offsets N - tail + `%f`, marked `{kernel.tail_of = @<k>}`), so that the
first is all whole vectors. fuse-launches runs a tail in its kernel's launch (one more block,
its first threads), so the tail costs no launch of its own: every such tile of at least
`min-tail-bytes` (default 0) is split. H200 (2026-11-30, session 31, probe31.py; one float per
thread / float4s for the count rounded down to a multiple of 4, us): silu(x) * y over 2275117
floats 14.7 / 11.4, over 457 x 3 x 521 4.9 / 3.7, x * sigmoid(y + b) over 2 x 1039 x 1235 10.2 /
8.9. (Before, with the tail a launch of its own, only tiles of 36 MB or more were split.)

Declines (logged to `dpl.passes`) what vectorize-pointwise declines for its form (a block or
cell axis, a reduce loop, a collective op, a loop at the top of the body), a tile whose fastest
extent `width` divides (vectorize-pointwise takes it as it is), an axis used
other than as an access index, an access of another element count than a suffix of the tile's
extents or not at the row-major position (a transpose, a slice; a store of a broadcast), and a
tile whose N `width` does not divide that moves fewer than `min-tail-bytes` or not only f32
(its kernel would not move float4s), or that has fewer than `width` points. Where the flat
form declines for an access, the reason given is that access's when no count of leading axes
works either.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr, Float32Type, MemRefType, ModuleOp, StringAttr, SymbolRefAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import loop, tile
from dpl.dialects.kernel import TAIL_OF
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, delinearize, linear, rebuild_tile, with_map
from dpl.transforms.tile.matmul import fold_applies, for_each_tile, kernel_name
from dpl.transforms.tunable import tunable
from dpl.transforms.tile.vectorize_pointwise import ACCESSES, pointwise_declines


def _row_major(shape: Sequence[int]) -> list[int]:
    return [math.prod(shape[i + 1 :]) for i in range(len(shape))]


def _offset_form(op: loop.LoadOp | loop.StoreOp):
    """Access `op`'s row-major offset into its buffer as a linear form over its index values
    (None if not linear)."""
    offset: AffineExpr = AffineConstantExpr(0)
    for index, stride in zip(op.map.data.results, _row_major(op.memref.type.get_shape())):  # type: ignore[union-attr]
        offset = offset + index * stride
    return linear(offset, list(op.indices))


def _period(op: loop.LoadOp | loop.StoreOp, extents: list[int], axes: list[SSAValue]) -> int | str:
    """The number of elements after which the access repeats along the tile's flat order: the
    tile's N for an access at the tile's row-major position, the product of the last k extents
    for a load of a buffer broadcast over the axes before them (a bias over the last dim), 0 for
    one that reads the same element everywhere (left as it is), or why the access is neither."""
    what = f"the access to %{op.memref.name_hint or '?'}"
    ty = op.memref.type
    assert isinstance(ty, MemRefType)
    shape = list(ty.get_shape())
    m = math.prod(shape)
    suffix = [k for k in range(len(extents) + 1) if math.prod(extents[k:]) == m]
    if not suffix:
        return f"{what} has {m} elements, no product of the tile's last extents (a slice)"
    k = suffix[0]
    if k and isinstance(op, loop.StoreOp):
        return f"{what} stores to {m} elements, fewer than the tile's {math.prod(extents)}"
    form = _offset_form(op)
    tail = extents[k:]
    want = {a: s for a, s, e in zip(axes[k:], _row_major(tail), tail) if e > 1}
    if form is None or form[1] != 0 or {a: c for a, c in form[0].items() if a in axes and dict(zip(axes, extents))[a] > 1} != want:
        return f"{what} is not at the tile's row-major position" + (" (nor a broadcast over its leading axes)" if k else "")
    return m if want else 0


def _trailing(op: loop.LoadOp | loop.StoreOp, extents: list[int], axes: list[SSAValue], lead: int
              ) -> tuple[dict[SSAValue, int], int] | None:
    """For a tile whose first `lead` axes are kept: the leading axes' coefficients in the flat
    offset of access `op` and the period of its trailing part (the product of the last k of
    the trailing extents, row-major over the axes they belong to; 0 if it uses none of them);
    None if the offset is not of that form (a transposed or strided read, a constant part, a
    store that does not cover every trailing point)."""
    form = _offset_form(op)
    sizes = dict(zip(axes, extents))
    if form is None or form[1] != 0 or any(v not in sizes for v in form[0]):
        return None
    used = {a: c for a, c in form[0].items() if sizes[a] > 1}
    heads = {a: c for a, c in used.items() if a in axes[:lead]}
    tail = extents[lead:]
    for k in range(len(tail) + 1):
        want = {a: s for a, s, e in zip(axes[lead + k :], _row_major(tail[k:]), tail[k:]) if e > 1}
        if {a: c for a, c in used.items() if a not in heads} == want:
            period = math.prod(tail[k:]) if want else 0
            if isinstance(op, loop.StoreOp) and period != math.prod(tail):
                return None
            return heads, period
    return None


def _keep_leading(t: tile.TileOp, extents: list[int], width: int) -> int | None:
    """The fewest leading axes (at least 1, leaving 2 or more) whose trailing product `width`
    divides and over which every access of `t` follows the trailing axes' layout; None if none."""
    axes = list(t.body.block.args)
    for lead in range(1, len(extents) - 1):
        if math.prod(extents[lead:]) % width == 0 and all(
            _trailing(op, extents, axes, lead) is not None for op in _accesses(t)  # type: ignore[arg-type]
        ):
            return lead
    return None


def _collapse_trailing(t: tile.TileOp, extents: list[int], lead: int) -> None:
    """Rewrite `t` keeping its first `lead` axes, the rest one axis %f (the module docstring)."""
    axes = list(t.body.block.args)
    forms = [_trailing(op, extents, axes, lead) for op in _accesses(t)]  # type: ignore[arg-type]
    n = math.prod(extents[lead:])
    kept = [(e, tile.AxisKind.THREAD, a.name_hint or f"a{i}") for i, (a, e) in enumerate(zip(axes[:lead], extents))]

    def replacement(block: Block):
        ops = [affine.ApplyOp([block.args[lead]], AffineMapAttr(AffineMap(1, 0, (e,))))
               for e in delinearize(AffineDimExpr(0), extents[lead:])]  # fmt: skip
        return [*block.args[:lead], *[op.result for op in ops]], ops

    new = rebuild_tile(t, [*kept, (n, tile.AxisKind.THREAD, "f")], replacement)
    args = list(new.body.block.args)
    for op, form in zip(_accesses(new), forms):
        assert form is not None
        heads, period = form
        if not period:
            continue  # indexed by the leading axes alone: as it was
        offset: AffineExpr = AffineDimExpr(lead) if period == n else AffineDimExpr(lead) % period
        for a, c in heads.items():
            offset = AffineDimExpr(axes.index(a)) * c + offset
        shape = op.memref.type.get_shape()  # type: ignore[union-attr]
        with_map(op, args, AffineMap(lead + 1, 0, tuple(delinearize(offset, shape))))
    fold_applies(new)


def _accesses(t: tile.TileOp) -> list[Operation]:
    return [o for o in t.walk() if isinstance(o, ACCESSES)]


def _flatten(t: tile.TileOp, periods: list[int], n: int, start: int) -> None:
    """Index each access of `t` (a tile of one axis %f; `periods` in walk order, of a tile of
    `n` points) at the row-major indices of its flat offset `start + %f` (modulo its period,
    for a broadcast load)."""
    f = t.body.block.args[0]
    for op, period in zip(_accesses(t), periods):
        if not period:
            continue  # the same element everywhere: its indices use no axis
        offset = AffineDimExpr(0) + start if start else AffineDimExpr(0)
        if period < n:
            offset = offset % period
        shape = op.memref.type.get_shape()  # type: ignore[union-attr]
        with_map(op, [f], AffineMap(1, 0, tuple(delinearize(offset, shape))))
    fold_applies(t)  # erases collapse_pointwise's helper applies, now unused


def collapse_pointwise(t: tile.TileOp, width: int, min_tail_bytes: int) -> str | None:
    """Rewrite `t` as the module docstring says; None if done, else why not."""
    why = pointwise_declines(t)
    if why is not None:
        return why
    extents = [e for _, e, _ in t.axes]
    n = math.prod(extents)
    if extents[-1] % width == 0:
        return f"its fastest axis of {extents[-1]} is a multiple of {width} (vectorize-pointwise takes it as it is)"
    fold_applies(t)
    axes = list(t.body.block.args)
    for a in axes:
        for use in a.uses:
            if not isinstance(use.operation, ACCESSES):
                return f"an axis is used by {use.operation.name}, not only as an access index"
    accesses = [op for op in t.walk() if isinstance(op, ACCESSES)]
    periods: dict[Operation, int] = {}
    for op in accesses:
        period = _period(op, extents, axes)
        if isinstance(period, str):
            lead = _keep_leading(t, extents, width)
            if lead is None:
                return period
            LOG.info("collapse-pointwise: %s: %s; the axes after the first %d are the flat one",
                     kernel_name(t), period, lead)
            _collapse_trailing(t, extents, lead)
            return None
        periods[op] = period
    tail = n % width
    if tail == n:
        return f"its {n} elements are fewer than {width}"
    if tail and not all(isinstance(op.memref.type.element_type, Float32Type) for op in accesses):  # type: ignore[union-attr]
        return f"its {n} elements are not a multiple of {width}, and a tail kernel pays only for float4s (f32)"
    if tail:
        nbytes = sum(n * (op.memref.type.element_type.bitwidth // 8) for op in accesses)  # type: ignore[union-attr]
        if nbytes < min_tail_bytes:
            return (f"its {n} elements are not a multiple of {width}, and it moves {nbytes} bytes, fewer "
                    f"than min-tail-bytes = {min_tail_bytes} (a tail kernel's launch would not pay)")

    def replacement(block: Block):
        # Each old axis as an index of %f (only until the accesses are rewritten below).
        ops = [affine.ApplyOp([block.args[0]], AffineMapAttr(AffineMap(1, 0, (e,))))
               for e in delinearize(AffineDimExpr(0), extents)]  # fmt: skip
        return [op.result for op in ops], ops

    new = rebuild_tile(t, [(n - tail, tile.AxisKind.THREAD, "f")], replacement)
    order = [periods[op] for op in _accesses(new)]
    if tail:  # the last `tail` elements in a kernel of their own, after this one
        kernel = new.parent_op()
        assert isinstance(kernel, tile.KernelOp)
        rest = kernel.clone()
        rest.sym_name = StringAttr(kernel.sym_name.data + "_tail")
        rest.attributes[TAIL_OF] = SymbolRefAttr(kernel.sym_name.data)
        Rewriter.insert_op(rest, InsertPoint.after(kernel))
        rest_tile = rebuild_tile(rest.tile, [(tail, tile.AxisKind.THREAD, "f")], lambda b: ([b.args[0]], []))
        _flatten(rest_tile, order, n, n - tail)
        LOG.info("collapse-pointwise: @%s: the last %d of %d elements in @%s (%d bytes moved, at least "
                 "min-tail-bytes = %d)", kernel.sym_name.data, tail, n, rest.sym_name.data, nbytes, min_tail_bytes)
    _flatten(new, order, n, 0)
    return None


@dataclass(frozen=True)
class CollapsePointwise(ModulePass):
    """Run a pointwise tile whose accesses all follow its own row-major layout as one flat axis."""

    name = "collapse-pointwise"

    width: int = tunable(4, (1, 2, 4))
    """vectorize-pointwise's width (one tuning dimension with it): a tile whose fastest extent it divides is
    left as it is, and one whose element count it does not divide too."""

    min_tail_bytes: int = 0
    """The fewest bytes a tile whose element count `width` does not divide must move for its
    last elements to get a kernel of their own (fuse-launches runs it in this one's launch)."""

    def __post_init__(self):
        check_option(self, "width", 1)
        check_option(self, "min_tail_bytes", 0)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for where, reason in for_each_tile(op, lambda t: collapse_pointwise(t, self.width, self.min_tail_bytes)):
            if reason is None:
                LOG.info("collapse-pointwise: %s: one flat axis", where)
            else:
                LOG.info("collapse-pointwise: declined %s: %s", where, reason)
