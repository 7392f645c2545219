"""Helpers shared by the tile-level passes: rebuilding a `tile.tile` with new axes, folding
constant indices into accesses, and reading accesses as linear forms over SSA values."""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr
from xdsl.ir import Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
)

from dpl.dialects import loop, tile

LOG = logging.getLogger("dpl.passes")

Linear = tuple[dict[SSAValue, int], int]


def tiles(module: Operation) -> list[tile.TileOp]:
    return [op for op in module.walk() if isinstance(op, tile.TileOp)]


def const_index(value: SSAValue) -> int | None:
    """The integer of an `arith.constant` index value, else None."""
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def linear(expr: AffineExpr, operands: Sequence[SSAValue]) -> Linear | None:
    """`expr` over `operands` as (coefficient per value, constant); None if not linear."""
    if isinstance(expr, AffineConstantExpr):
        return {}, expr.value
    if isinstance(expr, AffineDimExpr):
        v = operands[expr.position]
        c = const_index(v)
        return ({}, c) if c is not None else ({v: 1}, 0)
    if isinstance(expr, AffineBinaryOpExpr):
        lhs, rhs = linear(expr.lhs, operands), linear(expr.rhs, operands)
        if lhs is None or rhs is None:
            return None
        if expr.kind == AffineBinaryOpKind.Add:
            terms = dict(lhs[0])
            for v, c in rhs[0].items():
                terms[v] = terms.get(v, 0) + c
            return {v: c for v, c in terms.items() if c}, lhs[1] + rhs[1]
        if expr.kind == AffineBinaryOpKind.Mul:
            if not rhs[0]:
                return {v: c * rhs[1] for v, c in lhs[0].items()}, lhs[1] * rhs[1]
            if not lhs[0]:
                return {v: c * lhs[1] for v, c in rhs[0].items()}, lhs[1] * rhs[1]
    return None


def linear_expr(form: Linear, order: Sequence[SSAValue]) -> AffineExpr:
    """The affine expression of a linear form whose values are dims in `order`."""
    expr: AffineExpr = AffineConstantExpr(form[1])
    for v, c in form[0].items():
        expr = expr + AffineDimExpr(order.index(v)) * c
    return expr


def fold_constant_indices(block: Block) -> None:
    """Fold `arith.constant` index operands of loads/stores/atomics into their maps."""
    for op in list(block.walk()):
        if not isinstance(op, (loop.LoadOp, loop.StoreOp, tile.AtomicOp)):
            continue
        amap = op.map.data
        consts = [const_index(v) for v in op.indices]
        if all(c is None for c in consts):
            continue
        kept = [v for v, c in zip(op.indices, consts) if c is None]
        new_dims: list[AffineExpr] = []
        pos = 0
        for c in consts[: amap.num_dims]:
            if c is None:
                new_dims.append(AffineDimExpr(pos))
                pos += 1
            else:
                new_dims.append(AffineConstantExpr(c))
        new_map = amap.replace_dims_and_symbols(new_dims, [], pos, 0)
        if isinstance(op, loop.LoadOp):
            new = loop.LoadOp(op.memref, kept, new_map)
        elif isinstance(op, loop.StoreOp):
            new = loop.StoreOp(op.value, op.memref, kept, new_map)
        else:
            new = tile.AtomicOp(op.kind.data, op.value, op.memref, kept, new_map)
        new.attributes |= op.attributes
        if isinstance(op, loop.LoadOp):
            op.result.replace_all_uses_with(new.result)
            new.result.name_hint = op.result.name_hint
        block_of = op.parent_block()
        assert block_of is not None
        block_of.insert_op_before(new, op)
        op.detach()
        op.erase()


def index_constant(value: int) -> arith.ConstantOp:
    return arith.ConstantOp(IntegerAttr(value, IndexType()))


def rebuild_tile(
    old: tile.TileOp,
    axes: Sequence[tuple[int, tile.AxisKind, str]],
    replacement: Callable[[Block], tuple[list[SSAValue], list[Operation]]],
) -> tile.TileOp:
    """Replace `old` by a tile with `axes` (extent, kind, name); `replacement(new_block)` gives
    the value standing for each old axis and the ops (placed first) that compute them."""
    new = tile.TileOp([(e, k) for e, k, _ in axes])
    block = new.body.block
    for arg, (_, _, name) in zip(block.args, axes):
        arg.name_hint = name or None
    values, ops = replacement(block)
    for op in ops:
        block.add_op(op)
    for arg, value in zip(old.body.block.args, values):
        arg.replace_all_uses_with(value)
    for op in list(old.body.block.ops):
        op.detach()
        block.add_op(op)
    new.attributes |= old.attributes
    parent = old.parent_block()
    assert parent is not None
    parent.insert_op_before(new, old)
    old.detach()
    old.erase()
    return new


def axis_deps(tile_op: tile.TileOp) -> Callable[[SSAValue], set[SSAValue]]:
    """A function giving the tile axes a value (transitively) depends on."""
    axes = set(tile_op.body.block.args)
    memo: dict[SSAValue, set[SSAValue]] = {}

    def deps(v: SSAValue) -> set[SSAValue]:
        if v in memo:
            return memo[v]
        memo[v] = set()
        if v in axes:
            result = {v}
        elif isinstance(v, BlockArgument):
            parent = v.block.parent_op()
            result = set()
            if isinstance(parent, tile.StridedForOp):
                result = deps(parent.start)
        elif isinstance(v.owner, tile.CombineOp):
            # every thread of the combined axes sees the same result
            combined = set(v.owner.axes)
            result = deps(v.owner.value) - combined
        else:
            owner = v.owner
            assert isinstance(owner, Operation)
            result = set()
            for op in owner.walk():
                for o in op.operands:
                    if not _defined_inside(o, owner):
                        result |= deps(o)
        memo[v] = result
        return result

    return deps


def _defined_inside(value: SSAValue, op: Operation) -> bool:
    owner = value.owner
    owner_op = owner if isinstance(owner, Operation) else owner.parent_op()
    return owner_op is not None and owner_op is not op and op.is_ancestor(owner_op)


def uses_outside(op: Operation) -> list[SSAValue]:
    """Values used inside `op` (its regions) that are defined outside it."""
    seen: list[SSAValue] = []
    for inner in op.walk():
        for o in inner.operands:
            if not _defined_inside(o, op) and o not in seen:
                seen.append(o)
    return seen
