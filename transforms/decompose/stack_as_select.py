"""stack-as-select: a stack of a few values along the last axis becomes one elementwise select.

`torch.stack([a, b], -1)` reaches tensor IR as a concat of parts of extent 1 along the axis.
Lowered as it is, each part is its own loop nest writing every n-th element of the result (a
strided store), and a consumer that reads across the parts (`flatten(-2)`, GPT-J's interleaved
rotary: `stack([x1 cos - x2 sin, x1 sin + x2 cos], -1).flatten(-2)`) cannot take the parts in:
a copy kernel follows. As one elementwise op over the result, each part broadcast along the axis
and the element picked by its index there, the stack is a producer like any other: fuse-elementwise
joins the parts' arithmetic to it and fuse-loops joins it to its readers (one kernel, contiguous
stores; each element computes every part, so only a few parts qualify):

    %s = tensor.concat %a, %b axis 1 : tensor<4x1xf32>, tensor<4x1xf32> -> tensor<4x2xf32>
  becomes
    %a2 = tensor.index_map %a affine_map<(d0, d1) -> (d0, 0)> : tensor<4x1xf32> -> tensor<4x2xf32>
    %b2 = tensor.index_map %b affine_map<(d0, d1) -> (d0, 0)> : tensor<4x1xf32> -> tensor<4x2xf32>
    %s = tensor.elementwise ins(%a2, %b2 : ...) with_indices -> tensor<4x2xf32> {
    ^bb0(%x: f32, %y: f32, %i: index, %j: index):
      ... select(%j == 1, %y, %x) ...
    }

Declined: a concat along another axis than the last (there a thread's neighbours read other
parts: each part would be read from memory once per slice of the result, n times, where along
the last axis the n adjacent outputs share each read), with a part longer than 1 along the axis
(a part read at the other parts' positions would be read out of bounds), or with more than
MAX_PARTS (4) parts.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, TensorType
from xdsl.ir import Block, Region
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import tensor as T

LOG = logging.getLogger("dpl.passes")

#: The most parts a stack may have to become a select (each element computes every part).
MAX_PARTS = 4


def declined(concat: T.ConcatOp) -> str | None:
    """Why `concat` stays a concat, or None."""
    axis = concat.axis.data
    if axis != len(concat.result.type.get_shape()) - 1:  # type: ignore[attr-defined]
        return "not along the last axis (each part would be read once per slice of the result)"
    if any(v.type.get_shape()[axis] != 1 for v in concat.inputs):  # type: ignore[attr-defined]
        return "a part is longer than 1 along the axis"
    if not 2 <= len(concat.inputs) <= MAX_PARTS:
        return f"{len(concat.inputs)} parts (2 to {MAX_PARTS} become a select)"
    return None


def as_select(concat: T.ConcatOp) -> None:
    """Replace `concat` (a stack, `declined` None) by broadcasts and one elementwise select."""
    rtype = concat.result.type
    assert isinstance(rtype, TensorType)
    shape, axis, elem = list(rtype.get_shape()), concat.axis.data, rtype.element_type
    exprs = [AffineExpr.constant(0) if i == axis else AffineExpr.dimension(i) for i in range(len(shape))]
    spread = [T.IndexMapOp(v, AffineMap(len(shape), 0, tuple(exprs)), rtype) for v in concat.inputs]
    for k, m in enumerate(spread):
        m.result.name_hint = f"{concat.result.name_hint or 'stack'}_part{k}"
    block = Block(arg_types=[elem] * len(spread) + [IndexType()] * len(shape))
    values, at = block.args[: len(spread)], block.args[len(spread) + axis]
    picked = values[0]
    for k, value in enumerate(values[1:], start=1):
        k_const = arith.ConstantOp(IntegerAttr(k, IndexType()))
        here = arith.CmpiOp(at, k_const.result, "eq")
        select = arith.SelectOp(here.result, value, picked)
        block.add_ops([k_const, here, select])
        picked = select.result
    block.add_op(T.YieldOp(picked))
    stacked = T.ElementwiseOp([m.result for m in spread], rtype, Region(block), with_indices=True)
    stacked.result.name_hint = concat.result.name_hint
    Rewriter.replace_op(concat, [*spread, stacked], [stacked.result])


@dataclass(frozen=True)
class StackAsSelect(ModulePass):
    """Rewrite each concat of 2 to 4 parts of extent 1 along the last axis (a stack) as one
    elementwise select."""

    name = "stack-as-select"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for concat in [o for o in op.walk() if isinstance(o, T.ConcatOp)]:
            why = declined(concat)
            name = concat.result.name_hint or "concat"
            if why is None:
                LOG.info("stack-as-select: %%%s: %d parts -> one elementwise select", name, len(concat.inputs))
                as_select(concat)
            else:
                LOG.info("stack-as-select: declined %%%s: %s", name, why)
