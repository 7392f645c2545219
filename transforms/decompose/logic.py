"""decompose-logic: comparisons, logical, bitwise and shift ops, where and NaN/inf tests become
`tensor.elementwise` ops on bool (i1) tensors."""

from __future__ import annotations

import math as pymath
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.passes import ModulePass

from dpl.dialects import torch as t
from dpl.transforms.decompose.common import Emitter, Scalar, decompose, elem_of, is_float, shape_of

_COMPARE = {t.EqOp: "eq", t.NeOp: "ne", t.LtOp: "lt", t.LeOp: "le", t.GtOp: "gt", t.GeOp: "ge"}
_LOGICAL = {t.LogicalAndOp: arith.AndIOp, t.LogicalOrOp: arith.OrIOp, t.LogicalXorOp: arith.XOrIOp}
_BITWISE = {t.BitwiseAndOp: arith.AndIOp, t.BitwiseOrOp: arith.OrIOp, t.BitwiseXorOp: arith.XOrIOp}
_SHIFTS = {t.BitwiseLeftShiftOp: True, t.BitwiseRightShiftOp: False}  # (left?)


def _binary(op, em: Emitter):
    cls = type(op)
    if cls in _COMPARE:
        fn = lambda s, a, b: s.cmp(_COMPARE[cls], a, b)  # noqa: E731
    elif cls in _LOGICAL:
        fn = lambda s, a, b: s.op(_LOGICAL[cls](s.nonzero(a), s.nonzero(b)))  # noqa: E731
    elif cls in _SHIFTS:
        fn = lambda s, a, b: _shift(s, a, b, left=_SHIFTS[cls])  # noqa: E731
    else:
        fn = lambda s, a, b: s.op(_BITWISE[cls](a, b))  # noqa: E731
    return em.binary(op.lhs, op.rhs, fn, shape=shape_of(op.result), etype=elem_of(op.result))


def _shift(s: Scalar, a, b, left: bool):
    """PyTorch's shifts: an amount outside [0, width) (one unsigned compare) shifts by width - 1
    to the right (the sign's fill) and gives 0 to the left."""
    width = a.type.width.data
    ok = s.cmpi("ult", b, s.const(width, b.type))
    amount = s.select(ok, b, s.const(width - 1, b.type))
    if not left:
        return s.op(arith.ShRSIOp(a, amount))
    return s.select(ok, s.op(arith.ShLIOp(a, amount)), s.const(0, a.type))


def _isinf(s: Scalar, a):
    if not is_float(a.type):
        return s.const(0, IntegerType(1))
    return s.cmp("eq", s.abs(a), s.const(pymath.inf, a.type))


def _isnan(s: Scalar, a):
    if not is_float(a.type):
        return s.const(0, IntegerType(1))
    return s.op(arith.CmpfOp(a, a, "uno"))


def _bitwise_not(s: Scalar, a):
    """a xor all-ones (true for a bool)."""
    return s.op(arith.XOrIOp(a, s.const(-1 if a.type.width.data > 1 else 1, a.type)))


_UNARY = {
    t.IsnanOp: _isnan,
    t.IsinfOp: _isinf,
    t.LogicalNotOp: lambda s, a: s.cmp("eq", a, s.const(0, a.type)),
    t.BitwiseNotOp: _bitwise_not,
}


def _unary(op, em: Emitter):
    return em.unary(op.input, _UNARY[type(op)], etype=elem_of(op.result))


def _where(op: t.WhereOp, em: Emitter):
    shape = shape_of(op.result)
    ins = [em.broadcast(v, shape) for v in (op.cond, op.lhs, op.rhs)]
    return em.elementwise(ins, elem_of(op.result), shape, lambda s, c, a, b: s.select(c, a, b))


RULES = {
    **{cls: _binary for cls in (*_COMPARE, *_LOGICAL, *_BITWISE, *_SHIFTS)},
    **{cls: _unary for cls in _UNARY},
    t.WhereOp: _where,
}


@dataclass(frozen=True)
class DecomposeLogic(ModulePass):
    """Rewrite comparisons, logical/bitwise ops, isnan/isinf and where into `tensor.elementwise`.

    Comparisons give i1 tensors: floats compare ordered (`ne` unordered, so NaN != NaN),
    integers signed, bools unsigned; logical ops compare each operand with 0 first; shifts
    guard their amount as PyTorch does (`_shift`); where is `arith.select` on the three
    operands broadcast to the result shape.
    """

    name = "decompose-logic"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decompose(op, RULES)
