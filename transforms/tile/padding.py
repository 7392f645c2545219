"""Helpers for the passes that round a tile's ragged sizes up (pad-matmul, pad-columns).

A tile axis (or a loop) of extent E grown to E' > E runs points past the end; the accesses those
points make are marked `{tile.masked = [dims]}` (reads there give 0, writes are dropped). The
helpers read accesses as linear forms over the tile's axes and loops, with their value ranges:
`past_end` says whether an access is past its buffer at every added point (so a store there
writes nothing it should not), `leaving_dims` which dims an access may leave the buffer along,
and `grow` rebuilds the tile with the new extents and marks the accesses.
"""

from __future__ import annotations

from collections.abc import Mapping

from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import IntAttr, IntegerAttr, MemRefType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineExpr

from dpl.dialects import loop, tile
from dpl.transforms.tile.common import Linear, expr_range, linear, rebuild_tile
from dpl.transforms.tile.matmul import ACCESSES, dim_forms, merged_forms, substitute, value_form

Ranges = dict[SSAValue, tuple[int, int]]


def ranges_of(t: tile.TileOp) -> Ranges:
    """[0, extent - 1] for each axis and `loop.for` induction variable of `t`."""
    ranges: Ranges = {v: (0, e - 1) for v, e, _ in t.axes}
    for o in t.walk():
        if isinstance(o, loop.ForOp):
            ranges[o.iv] = (0, o.extent.data - 1)
    return ranges


def form_range(form: Linear, ranges: Ranges) -> tuple[int, int] | None:
    """The smallest and largest value of a linear form (None if a value's range is unknown)."""
    lo = hi = form[1]
    for v, c in form[0].items():
        r = ranges.get(v)
        if r is None:
            return None
        lo, hi = lo + min(c * r[0], c * r[1]), hi + max(c * r[0], c * r[1])
    return lo, hi


def value_range(v: SSAValue, ranges: Ranges) -> tuple[int, int] | None:
    """The smallest and largest value of an index value: an axis or loop index (`ranges`), an
    index constant, or an `affine.apply` of such values; None if unknown."""
    if v in ranges:
        return ranges[v]
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data, owner.value.value.data
    if isinstance(owner, affine.ApplyOp) and owner.map.data.num_symbols == 0:
        return operand_range(owner.map.data.results[0], list(owner.mapOperands), ranges)
    return None


def operand_range(expr: AffineExpr, operands: list[SSAValue], ranges: Ranges) -> tuple[int, int] | None:
    """The smallest and largest value of an affine index over `operands` (common.expr_range over
    their `value_range`s), so `%r floordiv 8` and `%r mod 8` of a collapsed loop %r < 512 stay
    within 64 x 8."""
    return expr_range(expr, [value_range(v, ranges) for v in operands])


def past_end(op: Operation, value: SSAValue, extent: int, ranges: Ranges) -> bool:
    """Whether some index of access `op` is past its buffer for every `value` >= `extent`: a
    linear `c * value + rest` with c > 0 and c * extent + min(rest) >= the dim's size (a pair
    of dims `e floordiv n, e mod n` read as one, `merged_forms`), or a `e floordiv n` of such a
    linear e with (c * extent + min(rest)) floordiv n >= the dim's size (collapse-matmul-axes'
    outermost dim of a side, a convolution's input channel `%k floordiv 9`)."""
    assert isinstance(op, ACCESSES)
    forms, shape = merged_forms(op)
    for d, form in enumerate(forms):
        if form is not None and _past(form, value, extent, ranges, 1, shape[d]):
            return True
    exprs, size = op.map.data.results, op.memref.type.get_shape()  # type: ignore[union-attr]
    for d, e in enumerate(exprs):
        if isinstance(e, AffineBinaryOpExpr) and e.kind == AffineBinaryOpKind.FloorDiv and isinstance(e.rhs, AffineConstantExpr):
            form = linear(e.lhs, list(op.indices))
            if form is not None and e.rhs.value > 0:
                form = substitute(form, {v: value_form(v) for v in form[0]})
                if _past(form, value, extent, ranges, e.rhs.value, size[d]):
                    return True
    return False


def _past(form: Linear, value: SSAValue, extent: int, ranges: Ranges, n: int, size: int) -> bool:
    """Whether `form floordiv n` is at least `size` for every `value` >= `extent` (its
    coefficient positive, the rest at its least)."""
    c = form[0].get(value, 0)
    if c <= 0:
        return False
    rest = form_range(({v: k for v, k in form[0].items() if v is not value}, form[1]), ranges)
    return rest is not None and (c * extent + rest[0]) // n >= size


def vanishes(v: SSAValue, k: SSAValue, extent: int, ranges: Ranges) -> bool:
    """Whether `v` is 0 at every iteration `k` >= `extent` of a reduce loop run past its end: a
    product with a factor that is a load past its buffer there (masked, it reads 0), or a sum,
    difference or negation of such values; the other factors are taken to be finite."""
    owner = v.owner
    if isinstance(owner, loop.LoadOp):
        return past_end(owner, k, extent, ranges)
    if isinstance(owner, arith.MulfOp):
        return vanishes(owner.lhs, k, extent, ranges) or vanishes(owner.rhs, k, extent, ranges)
    if isinstance(owner, arith.AddfOp | arith.SubfOp):
        return vanishes(owner.lhs, k, extent, ranges) and vanishes(owner.rhs, k, extent, ranges)
    if isinstance(owner, arith.NegfOp):
        return vanishes(owner.operand, k, extent, ranges)
    return False


def leaving_dims(op: Operation, ranges: Ranges) -> list[int]:
    """The dims along which an index of access `op` can fall outside its buffer."""
    assert isinstance(op, ACCESSES)
    t = op.memref.type
    assert isinstance(t, MemRefType)
    dims = []
    exprs = op.map.data.results
    for d, (form, size) in enumerate(zip(dim_forms(op), t.get_shape())):
        r = operand_range(exprs[d], list(op.indices), ranges) if form is None else form_range(form, ranges)
        if r is None or r[0] < 0 or r[1] >= size:
            dims.append(d)
    return dims


def grow(t: tile.TileOp, extents: Mapping[SSAValue, int], loops: Mapping[loop.ForOp, int] = {}) -> tuple[tile.TileOp, int]:  # noqa: B006
    """Rebuild `t` with the axis extents `extents` (by axis value; others kept) and the loop
    extents `loops`, and mark every global access that may then leave its buffer; the new tile
    and how many accesses were marked."""
    for f, n in loops.items():
        f.properties["extent"] = IntAttr(n)
    axes = [(extents.get(v, e), k, v.name_hint or f"a{i}") for i, (v, e, k) in enumerate(t.axes)]
    new = rebuild_tile(t, axes, lambda b: (list(b.args), []))
    ranges = ranges_of(new)
    masked = 0
    for o in new.walk():
        dims = leaving_dims(o, ranges) if isinstance(o, ACCESSES) else []
        if dims and not tile.is_smem(o.memref):
            tile.mark_masked(o, sorted(set(dims) | set(tile.masked_dims(o))))
            masked += 1
    return new, masked
