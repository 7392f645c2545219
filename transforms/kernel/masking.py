"""Guards for `{tile.masked = [dims]}` accesses, used by lower-accesses, lower-stages and
materialize-mma (its stage fills and epilogue stores).

A masked access (pad-matmul's ragged tiles, pad-columns' rounded axes) may leave its buffer
along the listed dims; on the GPU each such index is compared with the dim's size (`i < size`,
the indices are non-negative):

- a load is masked, `v = kernel.load x[min(i, size - 1)] if in`: 0 outside, a predicated load
  on the GPU (`v = 0.0f; if (in) v = x[...]`), its indices clamped all the same so that its
  address stays valid (a float4 load, wholly inside or outside, clamps its innermost index to
  `size - 4`, which keeps it aligned);
- a store or an atomic runs under `if (in)`;
- a stage's fill copies under `if (in)` and writes zeros into shared memory otherwise (one guard
  per copy: a 16-byte copy is wholly inside or outside, since its run starts at a multiple of
  its width in an innermost dim its width divides).

Each function takes the emitter of the pass (`lowering.Emitter`, or materialize-mma's builder:
`emit`, `const`, `cmp`, `expr_value`; `guarded` and `zero_fill` also `at`) and the kernel-level
access (a map over kernel values, its leaves).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineExpr, AffineMap

from dpl.dialects import kernel as K
from dpl.transforms.kernel.lowering import Emitter


class IndexEmitter(Protocol):
    """What the guards of a load or store need of a lowering (lowering.Emitter has it)."""

    def emit(self, op: Operation) -> Operation: ...
    def const(self, value: int | float, t: Attribute | None = None) -> SSAValue: ...
    def cmp(self, a: SSAValue, b: SSAValue | int, pred: str, name: str = "") -> SSAValue: ...
    def expr_value(self, e: AffineExpr, leaves: Sequence[SSAValue], name: str = "") -> SSAValue: ...


def in_bounds(low: IndexEmitter, memref_type: MemRefType, amap: AffineMap, leaves: Sequence[SSAValue],
              dims: Sequence[int]) -> SSAValue:  # fmt: skip
    """i1: the access's index is inside the buffer along each of `dims`."""
    shape = memref_type.get_shape()
    cond: SSAValue | None = None
    for d in dims:
        v = low.expr_value(amap.results[d], list(leaves))
        c = low.cmp(v, shape[d], "ult")
        cond = c if cond is None else low.emit(arith.AndIOp(cond, c)).results[0]
    assert cond is not None
    cond.name_hint = "inside"
    return cond


def may_be_negative(e: AffineExpr) -> bool:
    """Whether index `e` over non-negative leaves can be negative: it has a negative constant
    or coefficient outside a `mod` (a flipped axis, `4 - %n`, read past its end by a padded
    tile runs below 0)."""
    if isinstance(e, AffineConstantExpr):
        return e.value < 0
    if isinstance(e, AffineBinaryOpExpr):
        if e.kind == AffineBinaryOpKind.Mod:
            return False
        return may_be_negative(e.lhs) or may_be_negative(e.rhs)
    return False


def clamped(low: IndexEmitter, memref_type: MemRefType, amap: AffineMap, leaves: Sequence[SSAValue],
            dims: Sequence[int], width: int = 1) -> tuple[AffineMap, list[SSAValue]]:  # fmt: skip
    """The access with the index of each of `dims` clamped to `size - 1` (a valid address); for
    a load of `width` lanes along the innermost dim, that dim's to `size - width` (a valid,
    aligned address when the size and the index are multiples of `width`). An index that may
    be negative (`may_be_negative`) is clamped to 0 from below too."""
    shape = memref_type.get_shape()
    leaves = list(leaves)
    exprs = list(amap.results)
    for d in dims:
        v = low.expr_value(exprs[d], leaves)
        last = shape[d] - (width if d == len(shape) - 1 else 1)
        m = low.emit(arith.MinSIOp(v, low.const(last))).results[0]
        if may_be_negative(exprs[d]):
            m = low.emit(arith.MaxSIOp(m, low.const(0))).results[0]
        leaves.append(m)
        exprs[d] = AffineExpr.dimension(len(leaves) - 1)
    return AffineMap(len(leaves), 0, tuple(exprs)), leaves


def zero(low: IndexEmitter, t: Attribute) -> SSAValue:
    """The constant 0 of element type `t`."""
    if isinstance(t, IntegerType | IndexType):
        return low.const(0, t)
    return low.const(0.0, t)


def masked_load(low: IndexEmitter, memref: SSAValue, amap: AffineMap, leaves: Sequence[SSAValue],
                dims: Sequence[int], width: int = 1) -> SSAValue:  # fmt: skip
    """`kernel.load memref[clamped] if in` (`width` 4: a float4, its lanes wholly inside or
    outside): 0 outside."""
    t = memref.type
    assert isinstance(t, MemRefType)
    cond = in_bounds(low, t, amap, leaves, dims)
    cmap, cleaves = clamped(low, t, amap, leaves, dims, width)
    return low.emit(K.LoadOp(memref, cleaves, cmap, width if width > 1 else None, mask=cond)).results[0]


def guarded(low: Emitter, cond: SSAValue, then: Callable[[], None], otherwise: Callable[[], None] | None = None) -> None:
    """`if (cond) { then() } [else { otherwise() }]` at the lowering's insertion point."""
    regions = []
    for body in (then, otherwise):
        if body is None:
            continue
        block = Block()
        with low.at(block):
            body()
            low.emit(K.YieldOp())
        regions.append(Region(block))
    low.emit(K.IfOp(cond, *regions))


def zero_fill(low: Emitter, smem: SSAValue, dmap: AffineMap, leaves: Sequence[SSAValue], count: int) -> None:
    """Write 0 into the `count` consecutive shared elements a copy would have filled."""
    t = smem.type
    assert isinstance(t, MemRefType)
    z = zero(low, t.element_type)
    *outer, last = dmap.results
    for lane in range(count):
        lmap = AffineMap(dmap.num_dims, 0, (*outer, last + lane))
        low.emit(K.StoreOp(z, smem, list(leaves), lmap))
