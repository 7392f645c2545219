"""decompose-elementwise: torch's pointwise ops become `tensor.elementwise`."""

from __future__ import annotations

import math as pymath
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, IntegerType, ModuleOp, TensorType
from xdsl.passes import ModulePass

from dpl.dialects import tensor as T
from dpl.dialects import torch as t
from dpl.transforms.decompose.common import Emitter, Scalar, decompose, elem_of, shape_of


def _sigmoid(s: Scalar, a):
    one = s.const(1.0)
    return s.div(one, s.add(one, s.unary(math.ExpOp, s.neg(a))))


def _gelu(op: t.GeluOp, s: Scalar, a):
    half, one = s.const(0.5), s.const(1.0)
    if op.approximate.data == t.GeluApproximate.TANH:
        cube = s.mul(s.mul(a, a), a)
        inner = s.add(a, s.mul(s.const(0.044715), cube))
        u = s.unary(math.TanhOp, s.mul(s.const(pymath.sqrt(2.0 / pymath.pi)), inner))
    else:
        u = s.unary(math.ErfOp, s.mul(a, s.const(1.0 / pymath.sqrt(2.0))))
    return s.mul(s.mul(half, a), s.add(one, u))


_UNARY = {
    t.NegOp: lambda op, s, a: s.neg(a),
    t.ReluOp: lambda op, s, a: s.max(a, s.const(0.0)),
    t.SigmoidOp: lambda op, s, a: _sigmoid(s, a),
    t.SiluOp: lambda op, s, a: s.mul(a, _sigmoid(s, a)),
    t.ExpOp: lambda op, s, a: s.unary(math.ExpOp, a),
    t.TanhOp: lambda op, s, a: s.unary(math.TanhOp, a),
    t.RsqrtOp: lambda op, s, a: s.unary(math.RsqrtOp, a),
    t.SqrtOp: lambda op, s, a: s.unary(math.SqrtOp, a),
    t.ReciprocalOp: lambda op, s, a: s.div(s.const(1.0), a),
    t.CosOp: lambda op, s, a: s.unary(math.CosOp, a),
    t.SinOp: lambda op, s, a: s.unary(math.SinOp, a),
    t.GeluOp: _gelu,
}

_BINARY = {
    t.AddOp: Scalar.add,
    t.SubOp: Scalar.sub,
    t.MulOp: Scalar.mul,
    t.DivOp: Scalar.div,
    t.PowOp: Scalar.pow,
    t.MaximumOp: Scalar.max,
}


def _unary(op, em: Emitter):
    fn = _UNARY[type(op)]
    return em.unary(op.input, lambda s, a: fn(op, s, a))


def _binary(op, em: Emitter):
    fn = _BINARY[type(op)]
    return em.binary(op.lhs, op.rhs, lambda s, a, b: fn(s, a, b), shape=shape_of(op.result))


def _constant(op: t.ConstantOp, em: Emitter):
    value = op.value
    values = value.get_values()
    if len(values) == 1:
        rtype = op.result.type
        assert isinstance(rtype, TensorType)
        return em.elementwise(
            [], rtype.element_type, rtype.get_shape(), lambda s: s.const(values[0])
        )
    return em._one(T.ConstantOp(value))


def _cast(s: Scalar, a, src, dst):
    if src == dst:
        return a
    f_src, f_dst = isinstance(src, AnyFloat), isinstance(dst, AnyFloat)
    if f_src and f_dst:
        wider = src.bitwidth < dst.bitwidth
        return s.op(arith.ExtFOp(a, dst) if wider else arith.TruncFOp(a, dst))
    if not f_src and f_dst:
        return s.op(arith.SIToFPOp(a, dst))
    if f_src and not f_dst:
        return s.op(arith.FPToSIOp(a, dst))
    assert isinstance(src, IntegerType) and isinstance(dst, IntegerType)
    wider = src.width.data < dst.width.data
    return s.op(arith.ExtSIOp(a, dst) if wider else arith.TruncIOp(a, dst))


def _to_dtype(op: t.ToDtypeOp, em: Emitter):
    src, dst = elem_of(op.input), elem_of(op.result)
    if src == dst:
        return op.input
    return em.unary(op.input, lambda s, a: _cast(s, a, src, dst), etype=dst)


RULES = {
    **{cls: _unary for cls in _UNARY},
    **{cls: _binary for cls in _BINARY},
    t.ConstantOp: _constant,
    t.ToDtypeOp: _to_dtype,
}


@dataclass(frozen=True)
class DecomposeElementwise(ModulePass):
    """Rewrite torch's pointwise ops (unary, binary with broadcasting, constant, to_dtype).

    Each becomes one `tensor.elementwise` whose body is arith/math (relu = maximumf with 0,
    silu = x * 1/(1+exp(-x)), gelu with erf or its tanh form); binary operands are first
    broadcast to the result shape with `tensor.index_map`. A splat constant is a zero-operand
    elementwise; any other constant becomes `tensor.constant`.
    """

    name = "decompose-elementwise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decompose(op, RULES)
