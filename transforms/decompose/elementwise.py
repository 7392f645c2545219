"""decompose-elementwise: torch's pointwise ops become `tensor.elementwise`."""

from __future__ import annotations

import math as pymath
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import AnyFloat, IntegerType, ModuleOp, TensorType
from xdsl.passes import ModulePass

from dpl.dialects import tensor as T
from dpl.dialects.scalar import LgammaOp
from dpl.dialects import torch as t
from dpl.transforms.decompose.common import Emitter, Scalar, decompose, elem_of, is_float, shape_of


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


def _sign(op, s: Scalar, a):
    """(a > 0) - (a < 0): 0 for 0 and NaN, as torch.sign."""
    zero = s.const(0, a.type)
    return s.sub(s.bool_to(s.cmp("gt", a, zero), a.type), s.bool_to(s.cmp("lt", a, zero), a.type))


#: The largest finite value of each float type.
_LARGEST = {"f16": 65504.0, "bf16": 3.3895313892515355e38, "f32": 3.4028234663852886e38}


def _round(op: t.RoundOp, s: Scalar, a):
    """Half to even; with decimals d, rint(a * 10^d) / 10^d (d < 0: rint(a / 10^-d) * 10^-d)."""
    d = op.decimals.data
    if d == 0:
        return s.unary(math.RoundEvenOp, a)
    # 10^|d| past the type's largest finite value is inf, as in PyTorch (the result is NaN).
    scale = 10.0 ** abs(d) if abs(d) <= 308 else pymath.inf
    scale = s.const(scale if scale <= _LARGEST.get(str(s.t), pymath.inf) else pymath.inf)
    if d > 0:
        return s.div(s.unary(math.RoundEvenOp, s.mul(a, scale)), scale)
    return s.mul(s.unary(math.RoundEvenOp, s.div(a, scale)), scale)


def _mish(op, s: Scalar, a):
    """a * tanh(log1p(exp(a)))."""
    softplus = s.unary(math.Log1pOp, s.unary(math.ExpOp, a))
    return s.mul(a, s.unary(math.TanhOp, softplus))


def _remainder(s: Scalar, a, b):
    """Python's %: r = fmod(a, b), plus b where r is nonzero and its sign differs from b's."""
    r = s.rem(a, b)
    zero = s.const(0, a.type)
    fix = s.op(arith.AndIOp(s.cmp("ne", r, zero),
                            s.op(arith.XOrIOp(s.cmp("lt", r, zero), s.cmp("lt", b, zero)))))
    return s.select(fix, s.add(r, b), r)


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
    t.AbsOp: lambda op, s, a: s.abs(a),
    t.SignOp: _sign,
    t.LogOp: lambda op, s, a: s.unary(math.LogOp, a),
    t.Log1pOp: lambda op, s, a: s.unary(math.Log1pOp, a),
    t.Log2Op: lambda op, s, a: s.unary(math.Log2Op, a),
    t.Log10Op: lambda op, s, a: s.unary(math.Log10Op, a),
    t.Exp2Op: lambda op, s, a: s.unary(math.Exp2Op, a),
    t.Expm1Op: lambda op, s, a: s.unary(math.ExpM1Op, a),
    t.ErfOp: lambda op, s, a: s.unary(math.ErfOp, a),
    t.LgammaOp: lambda op, s, a: s.unary(LgammaOp, a),
    t.FloorOp: lambda op, s, a: s.unary(math.FloorOp, a),
    t.CeilOp: lambda op, s, a: s.unary(math.CeilOp, a),
    t.TruncOp: lambda op, s, a: s.unary(math.TruncOp, a),
    t.RoundOp: _round,
    t.TanOp: lambda op, s, a: s.unary(math.TanOp, a),
    t.AtanOp: lambda op, s, a: s.unary(math.AtanOp, a),
    t.AsinOp: lambda op, s, a: s.unary(math.AsinOp, a),
    t.AcosOp: lambda op, s, a: s.unary(math.AcosOp, a),
    t.SinhOp: lambda op, s, a: s.unary(math.SinhOp, a),
    t.CoshOp: lambda op, s, a: s.unary(math.CoshOp, a),
    t.AsinhOp: lambda op, s, a: s.unary(math.AsinhOp, a),
    t.AcoshOp: lambda op, s, a: s.unary(math.AcoshOp, a),
    t.AtanhOp: lambda op, s, a: s.unary(math.AtanhOp, a),
    t.MishOp: _mish,
}

_BINARY = {
    t.AddOp: Scalar.add,
    t.SubOp: Scalar.sub,
    t.MulOp: Scalar.mul,
    t.DivOp: Scalar.div,
    t.PowOp: Scalar.pow,
    t.MaximumOp: Scalar.max,
    t.MinimumOp: Scalar.min,
    t.FmodOp: Scalar.rem,
    t.RemainderOp: _remainder,
    t.Atan2Op: lambda s, a, b: s.op(math.Atan2Op(a, b)),
    t.CopysignOp: lambda s, a, b: s.op(math.CopySignOp(a, b)),
}


#: Integers are already integral: these return them as they are.
_ROUNDING = (t.FloorOp, t.CeilOp, t.TruncOp, t.RoundOp)


def _unary(op, em: Emitter):
    if isinstance(op, _ROUNDING) and not is_float(elem_of(op.input)):
        return op.input
    fn = _UNARY[type(op)]
    return em.unary(op.input, lambda s, a: fn(op, s, a))


def _binary(op, em: Emitter):
    fn = _BINARY[type(op)]
    return em.binary(op.lhs, op.rhs, lambda s, a, b: fn(s, a, b), shape=shape_of(op.result))


def _splat(v) -> float | None:
    """The value of `v` where it is a constant of one value (a torch.constant, or the
    operand-free `tensor.elementwise` that one decomposes to), else None."""
    op = v.owner
    if isinstance(op, t.ConstantOp):
        return float(op.value.get_values()[0]) if len(op.value) == 1 else None
    if isinstance(op, T.ElementwiseOp) and not op.ins:
        ops = list(op.body.block.ops)
        if len(ops) == 2 and isinstance(ops[0], arith.ConstantOp) and ops[1].operands[0] is ops[0].result:
            value = ops[0].value
            return float(value.value.data) if hasattr(value, "value") else None
    return None


def _pow(op: t.PowOp, em: Emitter):
    """`x ** 2` (a float tensor, a constant exponent of 2) is `x * x`, as PyTorch computes it:
    exact, and no powf per element; any other power is `math.powf`."""
    if is_float(elem_of(op.lhs)) and _splat(op.rhs) == 2.0 and shape_of(op.result) == shape_of(op.lhs):
        return em.unary(op.lhs, lambda s, a: s.mul(a, a))
    return _binary(op, em)


def _constant(op: t.ConstantOp, em: Emitter):
    value = op.value
    if len(value) == 1:  # (get_values would unpack every element of a large one)
        values = value.get_values()
        rtype = op.result.type
        assert isinstance(rtype, TensorType)
        return em.elementwise(
            [], rtype.element_type, rtype.get_shape(), lambda s: s.const(values[0])
        )
    return em._one(T.ConstantOp(value))


def _iota(op: t.IotaOp, em: Emitter):
    """The position along `dim`: the index of the elementwise op's loop there."""
    elem, dim = elem_of(op.result), op.dim.data
    return em.elementwise([], elem, shape_of(op.result), lambda s, *idx: s.op(arith.IndexCastOp(idx[dim], elem)),
                          with_indices=True, hint="iota")  # fmt: skip


def _cast(s: Scalar, a, src, dst):
    """PyTorch's conversions: to bool is `!= 0`, from bool 0 / 1, float to int truncates."""
    if src == dst:
        return a
    if isinstance(dst, IntegerType) and dst.width.data == 1:
        return s.nonzero(a)
    if isinstance(src, IntegerType) and src.width.data == 1:
        return s.bool_to(a, dst)
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


def _bitcast(op: t.BitcastOp, em: Emitter):
    """The same bits read as the result's type: `arith.bitcast` (the verifier checks widths)."""
    dst = elem_of(op.result)
    return em.unary(op.input, lambda s, a: s.op(arith.BitcastOp(a, dst)), etype=dst)


RULES = {
    **{cls: _unary for cls in _UNARY},
    **{cls: _binary for cls in _BINARY},
    t.PowOp: _pow,
    t.ConstantOp: _constant,
    t.IotaOp: _iota,
    t.ToDtypeOp: _to_dtype,
    t.BitcastOp: _bitcast,
}


@dataclass(frozen=True)
class DecomposeElementwise(ModulePass):
    """Rewrite torch's arithmetic pointwise ops (unary, binary with broadcasting, constant,
    to_dtype).

    Each becomes one `tensor.elementwise` whose body is arith/math (relu = maximumf with 0,
    silu = x * 1/(1+exp(-x)), x ** 2 = x * x, gelu with erf or its tanh form, round = math.roundeven, remainder =
    fmod plus the divisor where the signs differ, sign = (x > 0) - (x < 0)); binary operands are
    first broadcast to the result shape with `tensor.index_map`. Rounding ops leave integers as
    they are. A splat constant is a zero-operand elementwise; any other constant becomes
    `tensor.constant`. to_dtype converts as PyTorch: to bool is `!= 0`, bool is 0 / 1.
    """

    name = "decompose-elementwise"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decompose(op, RULES)
