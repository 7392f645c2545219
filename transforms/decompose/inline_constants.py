"""inline-constants: an elementwise op computes the scalar constants it reads in its own body.

A Python number in a PyTorch program (`x * 2.0`, a polynomial's coefficients) reaches tensor IR
as a 0-d `tensor.elementwise` without operands that yields an `arith.constant`, broadcast to its
reader's shape by a `tensor.index_map`:

    %c = tensor.elementwise -> tensor<f32> { %k = arith.constant 2.0 : f32  tensor.yield %k : f32 }
    %b = tensor.index_map %c affine_map<(d0) -> ()> : tensor<f32> -> tensor<1024xf32>
    %y = tensor.elementwise ins(%x, %b : ...) -> tensor<1024xf32> { ^bb0(%v: f32, %w: f32): %m = arith.mulf %v, %w ... }
 -> %y = tensor.elementwise ins(%x : ...) -> tensor<1024xf32> { ^bb0(%v: f32): %k = arith.constant 2.0 : f32  %m = arith.mulf %v, %k ... }

Each such constant would be a buffer and a kernel of its own after lower-to-loops, which
fuse-loops then inlines one at a time into its readers, each inlining a copy of a growing
kernel: erfinv by Horner's rule (three polynomials, 59 coefficients) and i0 by Clenshaw's
recurrence made a Beta log-density 460 loop kernels and 24 s of fuse-loops. Inlined here, the
chains they interrupted merge in fuse-elementwise.

A reader keeps an operand whose 0-d producer has operands or reads its position (anything but a
constant), and a broadcast that is not of a 0-d value. The constant and its broadcast are erased
once nothing reads them.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects.tensor import ElementwiseOp, IndexMapOp, YieldOp


def scalar_constant(v: SSAValue) -> ElementwiseOp | None:
    """The 0-d operand-free elementwise op that `v` is (or broadcasts), else None."""
    owner = v.owner
    if isinstance(owner, IndexMapOp):
        owner = owner.input.owner
    if (
        isinstance(owner, ElementwiseOp)
        and not owner.ins
        and owner.with_indices is None
        and not owner.result.type.get_shape()  # type: ignore[attr-defined]
    ):
        return owner
    return None


def inline_constants(op: ElementwiseOp) -> ElementwiseOp | None:
    """`op` with its scalar-constant operands computed in its body (None when it has none)."""
    constants = [scalar_constant(v) for v in op.ins]
    if not any(constants):
        return None
    kept = [v for v, k in zip(op.ins, constants) if k is None]
    old = op.body.block
    block = Block(arg_types=[v.type.element_type for v in kept] + [a.type for a in op.index_args])  # type: ignore[attr-defined]
    args = iter(block.args)
    for arg, const in zip(op.scalar_args, constants):
        if const is None:
            arg.replace_all_uses_with(next(args))
            continue
        mapping: dict[SSAValue, SSAValue] = {}
        for inner in const.body.block.ops:
            if isinstance(inner, YieldOp):
                arg.replace_all_uses_with(mapping.get(inner.operands[0], inner.operands[0]))
            else:
                clone = inner.clone(value_mapper=mapping)
                block.add_op(clone)
    for arg in op.index_args:
        arg.replace_all_uses_with(next(args))
    for inner in list(old.ops):
        inner.detach()
        block.add_op(inner)
    new = ElementwiseOp(kept, op.result.type, block, with_indices=op.with_indices is not None)  # type: ignore[arg-type]
    Rewriter.replace_op(op, new)
    return new


def _erase_if_dead(value: SSAValue) -> None:
    owner = value.owner
    if value.uses or not isinstance(owner, (IndexMapOp, ElementwiseOp)):
        return
    source = owner.input if isinstance(owner, IndexMapOp) else None
    owner.detach()
    owner.erase()
    if source is not None:
        _erase_if_dead(source)


@dataclass(frozen=True)
class InlineConstants(ModulePass):
    """Compute the scalar constants each tensor.elementwise reads in its body."""

    name = "inline-constants"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for ew in [o for o in op.walk() if isinstance(o, ElementwiseOp)]:
            read = list(ew.ins)
            if inline_constants(ew) is not None:
                for v in read:
                    if scalar_constant(v) is not None:
                        _erase_if_dead(v)
