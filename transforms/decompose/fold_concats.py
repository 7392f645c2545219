"""fold-concats: read through tensor.concat where a read stays inside its parts.

PyTorch's slice assignments (`out[:, :k] = x[:, 1:]`, `slice_scatter`, a zeroed buffer filled
in parts, a rolled or shifted copy) reach tensor IR as chains of concats of slices of concats.
Every concat is a kernel that writes a whole buffer, so a chain of n assignments writes and
rereads the tensor n times. This pass reads through them, to a fixed point:

- **a read inside one part**: `index_map(concat(p0, p1, ... axis a), m)` where the index `m`
  gives along `a` stays inside one part over the whole result (interval bounds) reads that part,
  the part's offset subtracted:

      %c = tensor.concat %p, %q axis 0 : tensor<4x8xf32>, tensor<6x8xf32> -> tensor<10x8xf32>
      %s = tensor.index_map %c affine_map<(d0, d1) -> (d0 + 5, d1)> : ... -> tensor<3x8xf32>
  becomes
      %s = tensor.index_map %q affine_map<(d0, d1) -> (d0 + 1, d1)> : ... -> tensor<3x8xf32>

- **a read across parts**: where that index is `d_j + c` and crosses parts, the index_map
  becomes a concat along result dim j of one index_map per part it touches. Only when every
  user of the concat reads through it (else it stays, and its parts would be written twice),
  and no such read enlarges it, nor reads all of it for an op that would fuse it (an
  elementwise op, a reduction: a new concat of the whole would be one more buffer).
- **splats**: an index_map of a splat constant is the splat at the result's shape.
- **flattening**: a concat operand that is a concat along the same axis is replaced by its
  operands; one along another axis that has other users too, and reads only arguments and
  splats, is copied for this concat alone (lower-to-loops then writes it into this concat's
  buffer, and its other users may read through it: `out[1:-1, 1:-1] = x; out[0] = out[1]`); adjacent operands that are one source read contiguously along the axis (index_maps
  of one source whose maps differ by the first's extent along the axis) merge into one
  index_map, and adjacent splats of one value into one splat; a concat of one operand is that
  operand.

An index_map made of an index_map is composed on the spot, and one that reads its whole source
unchanged is its source. Ops left without users are erased.

Reads across parts stop splitting once a function's concats would have more than GROWTH (2)
times the operands they had at the start (at least MIN_BUDGET, 16), counted for all users of a
concat at once: a long chain of assignments over several axes would otherwise cut the tensor
into many small pieces, each a loop nest.

Declined: a map along the concat axis with a stride, floordiv or mod that crosses parts (a
reshape merging the axis with another), and anything that is not an index_map of a concat.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import func
from xdsl.dialects.builtin import DenseIntOrFPElementsAttr, ModuleOp, TensorType
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects.tensor import ConcatOp, ConstantOp, IndexMapOp, expr_range
from dpl.transforms.decompose.common import shape_of
from dpl.transforms.decompose.fold_index_maps import simplify

#: reads across parts may split until a function's concats have GROWTH times the operands they
#: had (at least MIN_BUDGET): a long chain of assignments over several axes would otherwise cut
#: the tensor into many small pieces, each a loop nest of its own
GROWTH = 2
MIN_BUDGET = 16


def _splat(v: SSAValue):
    """The value of `v` if it is a splat constant, else None."""
    op = v.owner
    return op.splat() if isinstance(op, ConstantOp) else None


def _shifted_dim(expr: AffineExpr) -> tuple[int, int] | None:
    """(j, c) when `expr` is `d_j + c` (c may be 0), else None."""
    if isinstance(expr, AffineDimExpr):
        return expr.position, 0
    if isinstance(expr, AffineBinaryOpExpr) and expr.kind == AffineBinaryOpKind.Add:
        for a, b in ((expr.lhs, expr.rhs), (expr.rhs, expr.lhs)):
            if isinstance(a, AffineDimExpr) and isinstance(b, AffineConstantExpr):
                return a.position, b.value
    return None


def _parts(concat: ConcatOp) -> list[tuple[SSAValue, int, int]]:
    """(operand, first index, end) along the concat's axis, per operand."""
    axis, at, parts = concat.axis.data, 0, []
    for v in concat.inputs:
        n = shape_of(v)[axis]
        parts.append((v, at, at + n))
        at += n
    return parts


def _with_result(amap: AffineMap, r: int, expr: AffineExpr) -> AffineMap:
    results = list(amap.results)
    results[r] = expr
    return AffineMap(amap.num_dims, 0, tuple(results))


def _shift_dim(amap: AffineMap, j: int, by: int) -> AffineMap:
    """`amap` with d_j replaced by d_j + by."""
    shift = AffineMap(
        amap.num_dims,
        0,
        tuple(AffineExpr.dimension(i) + (by if i == j else 0) for i in range(amap.num_dims)),
    )
    return amap.compose(shift)


def _splat_op(value, elem, shape: list[int]) -> ConstantOp:
    return ConstantOp(DenseIntOrFPElementsAttr.from_list(TensorType(elem, shape), [value]))


def _read(src: SSAValue, amap: AffineMap, shape: list[int], before: Operation) -> SSAValue:
    """`index_map(src, amap)` at `shape`, inserted before `before`: a splat of a splat,
    composed with `src`'s own index_map, or `src` itself for an identity read of all of it."""
    amap = simplify(amap)
    value = _splat(src)
    elem = src.type.element_type
    if value is not None:
        new: Operation = _splat_op(value, elem, shape)
    else:
        inner = src.owner
        if isinstance(inner, IndexMapOp):
            src, amap = inner.input, simplify(inner.map.data.compose(amap))
        if shape_of(src) == tuple(shape) and amap == AffineMap.identity(len(shape)):
            return src
        new = IndexMapOp(src, amap, TensorType(elem, shape))
    Rewriter.insert_op(new, InsertPoint.before(before))
    return new.results[0]


def _inside(op: IndexMapOp) -> int | None:
    """The concat operand that `op` reads only from, if there is one."""
    concat = op.input.owner
    assert isinstance(concat, ConcatOp)
    bounds = expr_range(op.map.data.results[concat.axis.data], shape_of(op.result))
    if bounds is None:
        return None
    for k, (_, lo, hi) in enumerate(_parts(concat)):
        if lo <= bounds[0] and bounds[1] < hi:
            return k
    return None


def _readable(op: Operation) -> bool:
    """Whether `op` is an index_map that reads through the concat it reads: inside one part,
    or across parts by a shifted dim and smaller than the concat, or all of it (a reshape) read
    only by concats, index_maps or the return (a concat is a buffer: a whole read by an
    elementwise op is fused into it, better than made a second buffer). Only when every user of a
    concat is, do reads across parts split (else the concat would stay, and the split parts be
    written a second time)."""
    if not isinstance(op, IndexMapOp) or not isinstance(op.input.owner, ConcatOp):
        return False
    if _inside(op) is not None:
        return True
    concat = op.input.owner
    if _shifted_dim(op.map.data.results[concat.axis.data]) is None:
        return False
    size, whole = math.prod(shape_of(op.result)), math.prod(shape_of(concat.result))
    if size == whole:  # a whole read (a reshape): a new concat only where one is written anyway
        return all(isinstance(u.operation, ConcatOp | IndexMapOp | func.ReturnOp) for u in op.result.uses)
    return size < whole


def _function(op: Operation) -> Operation:
    """The func.func holding `op` (or the outermost op above it)."""
    while not isinstance(op, func.FuncOp) and op.parent_op() is not None:
        op = op.parent_op()  # type: ignore[assignment]
    return op


def _operands(fn: Operation) -> int:
    """How many operands the concats in `fn` have in all."""
    return sum(len(c.operands) for c in fn.walk() if isinstance(c, ConcatOp))


def _spans(op: IndexMapOp) -> list[tuple[int, int]]:
    """Per concat operand, the range of `op`'s result dim j that reads it ([first, end), empty
    where it reads none), `op` reading its concat across parts by `d_j + c`."""
    concat = op.input.owner
    assert isinstance(concat, ConcatOp)
    shifted = _shifted_dim(op.map.data.results[concat.axis.data])
    assert shifted is not None
    (j, c), out = shifted, shape_of(op.result)
    return [(max(0, lo - c), min(out[j], hi - c)) for _, lo, hi in _parts(concat)]


def _pieces(concat: ConcatOp) -> int:
    """How many operands reading through every user of `concat` adds."""
    count = 0
    for use in concat.result.uses:
        user = use.operation
        assert isinstance(user, IndexMapOp)
        if _inside(user) is None:
            count += sum(1 for first, end in _spans(user) if first < end)
    return count


def _read_through(op: IndexMapOp, budget: int, approved: set[ConcatOp]) -> SSAValue | None:
    """What `op`, an index_map of a concat, reads instead, or None. Reads across parts split
    only where every user of the concat can, within the budget for all of them at once (the
    concat is `approved` then, so its later users split too): else it would stay for some."""
    concat = op.input.owner
    assert isinstance(concat, ConcatOp)
    amap, axis, out = op.map.data, concat.axis.data, list(shape_of(op.result))
    expr = amap.results[axis]
    parts = _parts(concat)
    inside = _inside(op)
    if inside is not None:
        src, lo, _ = parts[inside]
        return _read(src, _with_result(amap, axis, expr - lo), out, op)
    if concat not in approved:
        if not all(_readable(use.operation) for use in concat.result.uses):
            return None
        if _operands(_function(op)) + _pieces(concat) > budget:
            return None
        approved.add(concat)
    shifted = _shifted_dim(expr)
    assert shifted is not None
    j, c = shifted
    pieces = []
    for (src, lo, _), (first, end) in zip(parts, _spans(op)):
        if first >= end:
            continue
        piece = _with_result(_shift_dim(amap, j, first), axis, AffineExpr.dimension(j) + (first + c - lo))
        shape = list(out)
        shape[j] = end - first
        pieces.append(_read(src, piece, shape, op))
    new = ConcatOp(pieces, j)
    Rewriter.insert_op(new, InsertPoint.before(op))
    return new.result


def _contiguous(a: SSAValue, b: SSAValue, axis: int) -> bool:
    """Whether `b` continues `a` along `axis`: index_maps of one source, b's map being a's with
    d_axis moved on by a's extent."""
    ma, mb = a.owner, b.owner
    if not (isinstance(ma, IndexMapOp) and isinstance(mb, IndexMapOp)) or ma.input != mb.input:
        return False
    moved = simplify(_shift_dim(ma.map.data, axis, shape_of(a)[axis]))
    return moved == simplify(mb.map.data)


def _merged(a: SSAValue, b: SSAValue, axis: int, before: Operation) -> SSAValue | None:
    """One value for adjacent operands `a`, `b` of a concat along `axis`, or None."""
    shape = list(shape_of(a))
    shape[axis] += shape_of(b)[axis]
    va, vb = _splat(a), _splat(b)
    if va is not None and vb is not None and va == vb:
        new: Operation = _splat_op(va, a.type.element_type, shape)
    elif _contiguous(a, b, axis):
        ma = a.owner
        assert isinstance(ma, IndexMapOp)
        return _read(ma.input, ma.map.data, shape, before)
    else:
        return None
    Rewriter.insert_op(new, InsertPoint.before(before))
    return new.results[0]


def _cheap(v: SSAValue) -> bool:
    """An argument, a read of one, or a splat: what a copy of a concat may read again."""
    op = v.owner
    if isinstance(op, IndexMapOp):
        op = op.input.owner
    return isinstance(op, Block) or (isinstance(op, ConstantOp) and op.splat() is not None)


def _flatten(op: ConcatOp) -> list[SSAValue] | None:
    """`op`'s operands with same-axis concats spliced in and adjacent operands merged, or None
    when nothing changes."""
    axis = op.axis.data
    spliced: list[SSAValue] = []
    for v in op.inputs:
        inner = v.owner
        if isinstance(inner, ConcatOp) and inner.axis.data == axis:
            spliced.extend(inner.inputs)
        elif isinstance(inner, ConcatOp) and inner.result.uses.get_length() > 1 and all(map(_cheap, inner.inputs)):
            copy = ConcatOp(list(inner.inputs), inner.axis.data)
            Rewriter.insert_op(copy, InsertPoint.before(op))
            spliced.append(copy.result)
        else:
            spliced.append(v)
    merged: list[SSAValue] = []
    for v in spliced:
        joined = _merged(merged[-1], v, axis, op) if merged else None
        if joined is not None:
            merged[-1] = joined
        else:
            merged.append(v)
    return None if merged == list(op.inputs) else merged


def _erase_dead(module: ModuleOp) -> None:
    kinds = (IndexMapOp, ConcatOp, ConstantOp)
    for op in reversed(list(module.walk())):
        if isinstance(op, kinds) and not op.results[0].uses:
            op.detach()
            op.erase()


@dataclass(frozen=True)
class FoldConcats(ModulePass):
    """Read through tensor.concat where reads stay inside its parts; flatten and merge concat
    operands (module docstring)."""

    name = "fold-concats"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        budgets = {
            f: max(GROWTH * _operands(f), MIN_BUDGET) for f in op.walk() if isinstance(f, func.FuncOp)
        }
        approved: set[ConcatOp] = set()
        changed = True
        while changed:
            changed = False
            for inner in list(op.walk()):
                if inner.parent is None:
                    continue
                new: SSAValue | None = None
                if isinstance(inner, IndexMapOp) and isinstance(inner.input.owner, ConcatOp):
                    new = _read_through(inner, budgets.get(_function(inner), MIN_BUDGET), approved)
                elif isinstance(inner, IndexMapOp) and _splat(inner.input) is not None:
                    new = _read(inner.input, inner.map.data, list(shape_of(inner.result)), inner)
                elif isinstance(inner, ConcatOp):
                    operands = _flatten(inner)
                    if operands is not None and len(operands) == 1:
                        new = operands[0]
                    elif operands is not None:
                        replacement = ConcatOp(operands, inner.axis.data)
                        Rewriter.insert_op(replacement, InsertPoint.before(inner))
                        new = replacement.result
                if new is not None:
                    if new.name_hint is None:
                        new.name_hint = inner.results[0].name_hint
                    inner.results[0].replace_all_uses_with(new)
                    inner.detach()
                    inner.erase()
                    changed = True
            _erase_dead(op)
