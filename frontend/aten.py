"""The ATen ops the frontend converts, and how: `HANDLERS`, the converter's one table.

Each entry maps an ATen op name (`aten::leaky_relu`; an overload such as `aten::max.dim` where
overloads mean different things) to a handler `(converter, node, *node.args, **node.kwargs)`
that emits torch-dialect ops and returns the node's value (a list of values for nodes with
several results, picked by `getitem`). `ENTRIES` keeps, per handler, the torch ops it emits and
its docstring's first line: docs/frontend.md's op table and the coverage figure
(`frontend/coverage.py`) are generated from it, and the torch.compile backend's partitioner asks
the same handlers which nodes dpl takes (`convert.unsupported_reason`).

A handler raises `UnsupportedOpError` (through `c.fail`) for a use it cannot express, e.g.
dropout in training mode or batch norm with batch statistics; that message is what the user sees.
"""

from __future__ import annotations

import functools
import itertools
import math
import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import torch
from torch import fx
from xdsl.dialects.builtin import (
    ArrayAttr,
    FloatAttr,
    Float32Type,
    IntAttr,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
    f64,
)
from xdsl.ir import Attribute, SSAValue

from dpl.dialects import torch as T
from dpl.frontend.convert import Converter, Handler, bound_args, norm_dim, torch_dtype
from dpl.frontend.erfcx_table import ERFCX_Y100


@dataclass(frozen=True)
class Entry:
    """One handler: the ATen ops it takes, the torch ops it emits, what it does (its doc)."""

    aten: tuple[str, ...]
    torch_ops: str
    note: str


HANDLERS: dict[str, Handler] = {}
ENTRIES: list[Entry] = []


def handles(*names: str, to: str = ""):
    """Register a handler for ATen ops `names` ("leaky_relu" or an overload "max.dim");
    `to` names the torch ops it emits (for the docs)."""

    def register(fn: Handler) -> Handler:
        keys = tuple(n if "::" in n else "aten::" + n for n in names)
        for k in keys:
            HANDLERS[k] = fn
        doc = (fn.__doc__ or "").strip().splitlines()
        ENTRIES.append(Entry(keys, to, doc[0] if doc else ""))
        return fn

    return register


def _f64(v: float) -> FloatAttr:
    return FloatAttr(float(v), f64)


def _bool(v: bool) -> IntegerAttr:
    return IntegerAttr(int(bool(v)), IntegerType(1))


def _dims_attr(dims: Sequence[int]) -> ArrayAttr:
    return ArrayAttr([IntAttr(d) for d in dims])


def _meta(arg):
    return arg.meta["val"] if isinstance(arg, fx.Node) else arg


def _common_elem(c: Converter, a, b) -> Attribute:
    """The element type PyTorch computes `a op b` in (type promotion of tensors and scalars)."""
    return c.elem(torch.result_type(_meta(a), _meta(b)))


def _operand(c: Converter, arg, elem: Attribute) -> SSAValue:
    return c.cast(c.value(arg, elem), elem)


def _is_int(t: Attribute) -> bool:
    return isinstance(t, IntegerType)


# ----------------------------------------------------------------------------- pointwise

_UNARY = {
    "neg": T.NegOp, "relu": T.ReluOp, "silu": T.SiluOp, "sigmoid": T.SigmoidOp, "exp": T.ExpOp,
    "tanh": T.TanhOp, "rsqrt": T.RsqrtOp, "sqrt": T.SqrtOp, "reciprocal": T.ReciprocalOp,
    "cos": T.CosOp, "sin": T.SinOp, "abs": T.AbsOp, "sign": T.SignOp, "log": T.LogOp,
    "log1p": T.Log1pOp, "log2": T.Log2Op, "log10": T.Log10Op, "exp2": T.Exp2Op,
    "expm1": T.Expm1Op, "erf": T.ErfOp, "floor": T.FloorOp, "ceil": T.CeilOp,
    "trunc": T.TruncOp, "fix": T.TruncOp, "tan": T.TanOp, "atan": T.AtanOp, "asin": T.AsinOp,
    "acos": T.AcosOp, "sinh": T.SinhOp, "cosh": T.CoshOp, "asinh": T.AsinhOp,
    "acosh": T.AcoshOp, "atanh": T.AtanhOp, "mish": T.MishOp, "hardsigmoid": T.HardsigmoidOp,
    "hardswish": T.HardswishOp,
}  # fmt: skip
#: Float-only math: an integer input computes in the default float type (PyTorch's promotion).
_FLOAT_ONLY = {"silu", "sigmoid", "exp", "tanh", "rsqrt", "sqrt", "reciprocal", "cos", "sin",
               "log", "log1p", "log2", "log10", "exp2", "expm1", "erf", "tan", "atan", "asin",
               "acos", "sinh", "cosh", "asinh", "acosh", "atanh", "mish", "hardsigmoid",
               "hardswish"}  # fmt: skip


def _unary(op_cls, float_only: bool):
    def handler(c: Converter, node, x, *rest, **kw):
        t = c.out_type()
        if float_only and _is_int(t.element_type):
            raise c.fail(f"unsupported {node.target} with an integer result")
        return c.emit(op_cls.create_from([c.cast(c.value(x), t.element_type)], t))

    handler.__doc__ = "Elementwise (an integer input of a float op computes in float)."
    return handler


for _name, _cls in _UNARY.items():
    handles(_name, to=_cls.name)(_unary(_cls, _name in _FLOAT_ONLY))


@handles("gelu", to="torch.gelu")
def _gelu(c: Converter, node, x, approximate="none"):
    """`approximate` none (erf) or tanh."""
    t = c.out_type()
    attr = T.GeluApproximateAttr(T.GeluApproximate(approximate))
    return c.emit(T.GeluOp.create_from([c.value(x)], t, {"approximate": attr}))


@handles("round", to="torch.round")
def _round(c: Converter, node, x, *, decimals=0):
    """Half to even, with `decimals` as ATen computes it."""
    t = c.out_type()
    return c.emit(T.RoundOp.create_from([c.value(x)], t, {"decimals": IntAttr(int(decimals))}))


@handles("leaky_relu", to="torch.leaky_relu")
def _leaky_relu(c: Converter, node, x, negative_slope=0.01):
    """`negative_slope` kept as a property."""
    t = c.out_type()
    props = {"negative_slope": _f64(negative_slope)}
    return c.emit(T.LeakyReluOp.create_from([c.value(x)], t, props))


@handles("rrelu", to="torch.leaky_relu")
def _rrelu(c: Converter, node, x, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """Inference: leaky_relu with the mean slope (lower + upper) / 2.

    Training (random slopes) is refused."""
    if training:
        raise c.fail("unsupported rrelu with training=True (random slopes)")
    return _leaky_relu(c, node, x, (lower + upper) / 2)


SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def _elu(c: Converter, x, alpha: float, scale: float, input_scale: float):
    t = c.out_type()
    props = {"alpha": _f64(alpha), "scale": _f64(scale), "input_scale": _f64(input_scale)}
    return c.emit(T.EluOp.create_from([c.value(x)], t, props))


@handles("elu", to="torch.elu")
def _elu_handler(c: Converter, node, x, alpha=1.0, scale=1.0, input_scale=1.0):
    """`alpha`, `scale`, `input_scale` kept."""
    return _elu(c, x, alpha, scale, input_scale)


@handles("selu", to="torch.elu")
def _selu(c: Converter, node, x):
    """elu with SELU's alpha and scale."""
    return _elu(c, x, SELU_ALPHA, SELU_SCALE, 1.0)


@handles("celu", to="torch.elu")
def _celu(c: Converter, node, x, alpha=1.0):
    """elu(alpha, scale 1, input_scale 1/alpha), as ATen defines celu."""
    if alpha == 0:
        raise c.fail("unsupported celu with alpha = 0")
    return _elu(c, x, alpha, 1.0, 1.0 / alpha)


@handles("softplus", to="torch.softplus")
def _softplus(c: Converter, node, x, beta=1.0, threshold=20.0):
    """`beta` and `threshold` kept."""
    t = c.out_type()
    props = {"beta": _f64(beta), "threshold": _f64(threshold)}
    return c.emit(T.SoftplusOp.create_from([c.value(x)], t, props))


def _hardtanh(c: Converter, x, lo: float, hi: float):
    t = c.out_type()
    props = {"min_val": _f64(lo), "max_val": _f64(hi)}
    return c.emit(T.HardtanhOp.create_from([c.value(x)], t, props))


@handles("hardtanh", to="torch.hardtanh")
def _hardtanh_handler(c: Converter, node, x, min_val=-1.0, max_val=1.0):
    """`min_val`, `max_val` kept (nn.ReLU6 is hardtanh 0..6)."""
    if min_val > max_val:
        raise c.fail(f"unsupported hardtanh with min_val {min_val} > max_val {max_val}")
    return _hardtanh(c, x, min_val, max_val)


@handles("relu6", to="torch.hardtanh")
def _relu6(c: Converter, node, x, *_):
    """hardtanh 0..6."""
    return _hardtanh(c, x, 0.0, 6.0)


def _clamp(c: Converter, x, lo, hi):
    t = c.out_type()
    bounds = [_operand(c, b, t.element_type) for b in (lo, hi) if b is not None]
    if not bounds:
        raise c.fail("unsupported clamp without a bound")
    props = {"has_min": _bool(lo is not None)}
    return c.emit(T.ClampOp.create_from([c.cast(c.value(x), t.element_type), *bounds], t, props))


@handles("clamp", "clip", to="torch.clamp")
def _clamp_handler(c: Converter, node, x, min=None, max=None):
    """Scalar or tensor bounds (broadcast), either may be absent."""
    return _clamp(c, x, min, max)


@handles("clamp_min", to="torch.clamp")
def _clamp_min(c: Converter, node, x, min):
    """A min-only clamp."""
    return _clamp(c, x, min, None)


@handles("clamp_max", to="torch.clamp")
def _clamp_max(c: Converter, node, x, max):
    """A max-only clamp."""
    return _clamp(c, x, None, max)


_BINARY = {
    "add": T.AddOp, "sub": T.SubOp, "mul": T.MulOp, "div": T.DivOp, "pow": T.PowOp,
    "maximum": T.MaximumOp, "minimum": T.MinimumOp, "fmod": T.FmodOp,
    "remainder": T.RemainderOp, "atan2": T.Atan2Op, "max.other": T.MaximumOp,
    "min.other": T.MinimumOp, "copysign": T.CopysignOp,
}  # fmt: skip
_FLOAT_BINARY = {"pow", "atan2", "div", "copysign"}


def _binary(op_cls, swap: bool = False, float_only: bool = False):
    def handler(c: Converter, node, lhs, rhs, alpha=1, rounding_mode=None):
        t = c.out_type()
        if float_only and rounding_mode is None and _is_int(t.element_type):
            raise c.fail(f"unsupported {node.target} on integer tensors")
        a, b = _operand(c, lhs, t.element_type), _operand(c, rhs, t.element_type)
        if alpha != 1:
            b = c.emit(T.MulOp.create_from([b, c.constant(alpha, t.element_type)], b.type))
        if swap:
            a, b = b, a
        if rounding_mode is not None and _is_int(t.element_type):
            return _int_division(c, a, b, rounding_mode, t)
        out = c.emit(op_cls.create_from([a, b], t))
        if rounding_mode is None:
            return out
        rounded = {"trunc": T.TruncOp, "floor": T.FloorOp}[rounding_mode]
        return c.emit(rounded.create_from([out], t))

    handler.__doc__ = "Elementwise with broadcasting; Python scalars become 0-d constants."
    return handler


for _name, _cls in _BINARY.items():
    handles(_name, to=_cls.name)(_binary(_cls, float_only=_name in _FLOAT_BINARY))
handles("rsub", to="torch.sub")(_binary(T.SubOp, swap=True))


def _int_division(c: Converter, a, b, rounding_mode: str, t):
    """Integer a / b rounded toward zero (torch.div on integers is C's division) or toward
    -inf: (a - remainder(a, b)) / b, whose division is exact."""
    if rounding_mode == "trunc":
        return _op(c, T.DivOp, t, a, b)
    return _op(c, T.DivOp, t, _op(c, T.SubOp, t, a, _op(c, T.RemainderOp, t, a, b)), b)


@handles("floor_divide", to="torch.div, torch.floor, torch.sub, torch.remainder")
def _floor_divide(c: Converter, node, lhs, rhs):
    """floor(a / b); integers: (a - remainder(a, b)) / b, exact."""
    return _binary(T.DivOp)(c, node, lhs, rhs, rounding_mode="floor")


_COMPARE = {
    "eq": T.EqOp, "ne": T.NeOp, "lt": T.LtOp, "le": T.LeOp, "gt": T.GtOp, "ge": T.GeOp,
    "greater": T.GtOp, "less": T.LtOp, "greater_equal": T.GeOp, "less_equal": T.LeOp,
    "not_equal": T.NeOp, "logical_and": T.LogicalAndOp, "logical_or": T.LogicalOrOp,
    "logical_xor": T.LogicalXorOp,
}  # fmt: skip


def _compare(op_cls):
    def handler(c: Converter, node, lhs, rhs):
        elem = _common_elem(c, lhs, rhs)
        a, b = _operand(c, lhs, elem), _operand(c, rhs, elem)
        return c.emit(op_cls.create_from([a, b], c.out_type()))

    handler.__doc__ = "A bool tensor; operands promoted to one type first (PyTorch's rules)."
    return handler


for _name, _cls in _COMPARE.items():
    handles(_name, to=_cls.name)(_compare(_cls))

_BITWISE = {
    "bitwise_and": T.BitwiseAndOp, "bitwise_or": T.BitwiseOrOp, "bitwise_xor": T.BitwiseXorOp,
    "__and__": T.BitwiseAndOp, "__or__": T.BitwiseOrOp, "__xor__": T.BitwiseXorOp,
}  # fmt: skip

for _name, _cls in _BITWISE.items():
    handles(_name, to=_cls.name)(_binary(_cls))


def _shift(op_cls):
    def handler(c: Converter, node, lhs, rhs):
        t = c.out_type()
        if not _is_int(t.element_type) or node.meta["val"].dtype in (torch.bool, torch.uint8):
            raise c.fail(f"unsupported {node.target} of {node.meta['val'].dtype} tensors (signed integers only)")
        return c.emit(op_cls.create_from([_operand(c, lhs, t.element_type), _operand(c, rhs, t.element_type)], t))

    handler.__doc__ = "Signed integers; an amount outside [0, bits) gives 0 (<<) or the sign's fill (>>), as PyTorch."
    return handler


for _name, _cls in {"__lshift__": T.BitwiseLeftShiftOp, "bitwise_left_shift": T.BitwiseLeftShiftOp,
                    "__rshift__": T.BitwiseRightShiftOp, "bitwise_right_shift": T.BitwiseRightShiftOp}.items():
    handles(_name, to=_cls.name)(_shift(_cls))


@handles("signbit", to="torch.copysign, torch.lt")
def _signbit(c: Converter, node, x):
    """copysign(1, x) < 0 (true at -0 and a negative NaN); x < 0 for integers."""
    v = c.value(x)
    t = v.type
    assert isinstance(t, TensorType)
    if not _is_int(t.element_type):
        v = _op(c, T.CopysignOp, t, c.constant(1.0, t.element_type), v)
    return _op(c, T.LtOp, c.out_type(), v, 0)


@handles("ldexp", to="torch.pow, torch.mul")
def _ldexp(c: Converter, node, x, other):
    """x * 2^other, as ATen computes it."""
    t = c.out_type()
    return _op(c, T.MulOp, t, _operand(c, x, t.element_type),
               _op(c, T.PowOp, t, c.constant(2.0, t.element_type), _operand(c, other, t.element_type)))


@handles("bitwise_not", to="torch.bitwise_not")
def _bitwise_not(c: Converter, node, x):
    """bool (logical not) or integer tensors."""
    t = c.out_type()
    if not _is_int(t.element_type):
        raise c.fail("unsupported bitwise_not of a float tensor")
    return c.emit(T.BitwiseNotOp.create_from([c.value(x)], t))


def _predicate(op_cls):
    def handler(c: Converter, node, x):
        return c.emit(op_cls.create_from([c.value(x)], c.out_type()))

    handler.__doc__ = "A bool tensor."
    return handler


for _name, _cls in {"isnan": T.IsnanOp, "isinf": T.IsinfOp, "logical_not": T.LogicalNotOp}.items():
    handles(_name, to=_cls.name)(_predicate(_cls))


def _where(c: Converter, cond, a, b):
    t = c.out_type()
    mask = c.cast(c.value(cond), IntegerType(1))
    return c.emit(
        T.WhereOp.create_from([mask, _operand(c, a, t.element_type), _operand(c, b, t.element_type)], t)
    )


@handles("where", to="torch.where")
def _where_handler(c: Converter, node, cond, a=None, b=None):
    """Tensor or scalar branches, broadcast with the bool condition."""
    if a is None or b is None:
        raise c.fail("unsupported where(cond) with one argument (data-dependent shape)")
    return _where(c, cond, a, b)


@handles("masked_fill", to="torch.where")
def _masked_fill(c: Converter, node, x, mask, value):
    """where(mask, value, x)."""
    return _where(c, mask, value, x)


@handles("masked_scatter", to="torch.cumsum, torch.sub, torch.mul, torch.add, torch.minimum, torch.embedding, torch.where")
def _masked_scatter(c: Converter, node, x, mask, source):
    """Where `mask` holds, source's elements in row-major order: one embedding lookup.

    Each set position reads source.flatten() at the count of set positions before it. The count
    runs over the dims before the trailing ones the mask is broadcast over (a token mask
    expanded over the hidden dim counts tokens, not elements), times their size, plus the
    position among them."""
    t = c.out_type()
    elem, shape = t.element_type, list(t.get_shape())
    full = c.value(mask)
    m = full.owner.input if isinstance(full.owner, T.ExpandOp) else full  # the mask as set, not expanded
    mshape = [1] * (len(shape) - len(m.type.get_shape())) + list(m.type.get_shape())  # type: ignore[attr-defined]
    k = len(shape)
    while k > 0 and mshape[k - 1] == 1:
        k -= 1
    i64 = IntegerType(64)
    lead = c.cast(_reshaped(c, m, mshape[:k]), i64)
    if mshape[:k] != shape[:k]:
        lead = c.emit(T.ExpandOp.create_from([lead], TensorType(i64, shape[:k])))
    flat = _reshaped(c, lead, [math.prod(shape[:k])])
    before = _op(c, T.SubOp, flat.type, _blocked_cumsum(c, flat, 0), flat)
    pos = _reshaped(c, before, shape[:k] + [1] * (len(shape) - k))
    pos = _op(c, T.MulOp, pos.type, pos, math.prod(shape[k:]))
    stride = 1
    for d in reversed(range(k, len(shape))):
        at = _iota(c, len(shape), d, shape[d])
        pos = _broadcast(c, T.AddOp, pos, at if stride == 1 else _op(c, T.MulOp, at.type, at, stride))
        stride *= shape[d]
    src = c.cast(c.value(source), elem)
    pos = _op(c, T.MinimumOp, pos.type, pos, math.prod(src.type.get_shape()) - 1)  # type: ignore[attr-defined]
    picked = _flat_lookup(c, src, pos)
    return c.emit(T.WhereOp.create_from([m, picked, c.value(x)], t))


@handles("addmm", "addmv", to="torch.matmul, torch.mul, torch.add")
def _addmm(c: Converter, node, bias, m1, m2, *, beta=1, alpha=1):
    """beta * bias + alpha * (m1 @ m2) (addmv: m2 a vector)."""
    t = c.out_type()
    mm = c.emit(T.MatmulOp.create_from([c.value(m1), c.value(m2)], t))
    if alpha != 1:
        mm = c.emit(T.MulOp.create_from([mm, c.constant(alpha, t.element_type)], t))
    b = c.value(bias)
    if beta == 0:
        return mm
    if beta != 1:
        b = c.emit(T.MulOp.create_from([b, c.constant(beta, t.element_type)], b.type))
    return c.emit(T.AddOp.create_from([mm, b], t))


@handles("addbmm", to="torch.permute, torch.reshape, torch.matmul, torch.mul, torch.add")
def _addbmm(c: Converter, node, bias, b1, b2, *, beta=1, alpha=1):
    """beta * bias + alpha * sum over the batch of b1[i] @ b2[i]: one matmul whose K runs over
    the batch and the inner dim, (n, B * k) @ (B * k, m)."""
    t = c.out_type()
    (bs, n, k), m = c.shape(b1), c.shape(b2)[2]
    elem = t.element_type
    a = c.emit(T.PermuteOp.create_from([c.cast(c.value(b1), elem)], TensorType(elem, [n, bs, k]), {"dims": _dims_attr([1, 0, 2])}))
    a = c.emit(T.ReshapeOp.create_from([a], TensorType(elem, [n, bs * k])))
    b = c.emit(T.ReshapeOp.create_from([c.cast(c.value(b2), elem)], TensorType(elem, [bs * k, m])))
    mm = c.emit(T.MatmulOp.create_from([a, b], t))
    if alpha != 1:
        mm = c.emit(T.MulOp.create_from([mm, c.constant(alpha, elem)], t))
    if beta == 0:
        return mm
    v = c.cast(c.value(bias), elem)
    if beta != 1:
        v = c.emit(T.MulOp.create_from([v, c.constant(beta, elem)], v.type))
    return c.emit(T.AddOp.create_from([mm, v], t))


@handles("bilinear", to="torch.permute, torch.reshape, torch.matmul, torch.mul, torch.sum, torch.add")
def _bilinear(c: Converter, node, x1, x2, weight, bias=None):
    """sum over i, j of x1[i] w[o, i, j] x2[j] (+ bias[o]): one matmul, a product, a sum.

    x1 @ w as an (i, o * j) matrix, times x2 broadcast over o, summed over j."""
    t = c.out_type()
    elem = t.element_type
    (o, i, j), lead = c.shape(weight), list(c.shape(x1)[:-1])
    n = math.prod(lead)
    a = _reshaped(c, c.cast(c.value(x1), elem), [n, i])
    w = c.emit(T.PermuteOp.create_from([c.cast(c.value(weight), elem)], TensorType(elem, [i, o, j]),
                                       {"dims": _dims_attr([1, 0, 2])}))
    aw = c.emit(T.MatmulOp.create_from([a, _reshaped(c, w, [i, o * j])], TensorType(elem, [n, o * j])))
    prod = _op(c, T.MulOp, TensorType(elem, [n, o, j]), _reshaped(c, aw, [n, o, j]),
               _reshaped(c, c.cast(c.value(x2), elem), [n, 1, j]))
    y = c.emit(T.SumOp.create_from([prod], TensorType(elem, [n, o]), {"dims": _dims_attr([2]), "keepdim": _bool(False)}))
    if bias is not None:
        y = _op(c, T.AddOp, y.type, y, c.cast(c.value(bias), elem))
    return _reshaped(c, y, t.get_shape())


@handles("fmax", "fmin", to="torch.isnan, torch.maximum, torch.minimum, torch.where")
def _fmax(c: Converter, node, a, b):
    """maximum / minimum that ignore a NaN operand (NaN only where both are)."""
    t = c.out_type()
    x, y = _operand(c, a, t.element_type), _operand(c, b, t.element_type)
    op = T.MaximumOp if node.target._schema.name.endswith("fmax") else T.MinimumOp  # type: ignore[union-attr]
    both = c.emit(op.create_from([x, y], t))
    if _is_int(t.element_type):
        return both
    x_nan = c.emit(T.IsnanOp.create_from([x], TensorType(IntegerType(1), x.type.get_shape())))  # type: ignore[attr-defined]
    y_nan = c.emit(T.IsnanOp.create_from([y], TensorType(IntegerType(1), y.type.get_shape())))  # type: ignore[attr-defined]
    out = _scalar_where(c, y_nan, x, both, t)
    return _scalar_where(c, x_nan, y, out, t)


# ----------------------------------------------------------------------------- reductions


def _dims(c: Converter, x, dim) -> list[int]:
    rank = c.rank(x)
    if dim is None or (isinstance(dim, (list, tuple)) and len(dim) == 0):
        return list(range(rank))
    if isinstance(dim, int):
        dim = [dim]
    return sorted(norm_dim(d, rank) for d in dim)


def _reduce_op(c: Converter, op_cls, x, dims, keepdim, t: TensorType, extra=None):
    props = {"dims": _dims_attr(dims), "keepdim": _bool(keepdim), **(extra or {})}
    return c.emit(op_cls.create_from([c.cast(c.value(x), t.element_type)], t, props))


def _reduce(op_cls):
    def handler(c: Converter, node, x, dim=None, keepdim=False, *, dtype=None):
        t = c.out_type()
        return _reduce_op(c, op_cls, x, _dims(c, x, dim), keepdim, t)

    handler.__doc__ = "Over `dim` (all dims when absent), keepdim."
    return handler


for _name, _cls in {"mean": T.MeanOp, "sum": T.SumOp, "amax": T.AmaxOp, "amin": T.AminOp,
                    "logsumexp": T.LogsumexpOp, "any": T.AnyOp, "all": T.AllOp}.items():
    handles(_name, to=_cls.name)(_reduce(_cls))


@handles("prod", to="torch.prod")
def _prod(c: Converter, node, x, dim=None, keepdim=False, *, dtype=None):
    """torch.prod over one dim or all."""
    if isinstance(dim, torch.dtype):  # prod.default(x, dtype)
        dim = None
    return _reduce_op(c, T.ProdOp, x, _dims(c, x, dim), keepdim, c.out_type())


def _var_op(c: Converter, node, op_cls, t: TensorType) -> SSAValue:
    """`op_cls` (var or std) of `node`'s input as `t`, with `correction` (or `unbiased`), over
    `dim` or all dims."""
    a = bound_args(node)
    correction = a.get("correction")
    if correction is None:
        correction = 1 if a.get("unbiased", True) in (True, None) else 0
    if _is_int(t.element_type):
        raise c.fail(f"unsupported {node.target} of an integer tensor")
    x = a["self"]
    dims = _dims(c, x, a.get("dim"))
    extra = {"correction": _f64(correction)}
    return _reduce_op(c, op_cls, x, dims, bool(a.get("keepdim") or False), t, extra)


def _var_like(op_cls):
    def handler(c: Converter, node, *args, **kwargs):
        return _var_op(c, node, op_cls, c.out_type())

    handler.__doc__ = "With `correction` (or `unbiased`), over `dim` or all dims."
    return handler


handles("var", to="torch.var")(_var_like(T.VarOp))
handles("std", to="torch.std")(_var_like(T.StdOp))


@handles("var_mean", to="torch.var, torch.mean")
def _var_mean(c: Converter, node, *args, **kwargs):
    """(var, mean) over `dim` or all dims, var with `correction` (or `unbiased`).

    std_mean comes through PyTorch's decomposition into var_mean and sqrt."""
    var = _var_op(c, node, T.VarOp, c.out_type(0))
    a = bound_args(node)
    x = a["self"]
    mean = _reduce_op(c, T.MeanOp, x, _dims(c, x, a.get("dim")), bool(a.get("keepdim") or False), c.out_type(1))
    return [var, mean]


@handles("linalg_vector_norm", "norm", to="torch.vector_norm")
def _vector_norm(c: Converter, node, *args, **kwargs):
    """`ord` (or `p`) 2, 1, inf, -inf, 0 or any other p; over `dim` or all dims."""
    a = bound_args(node)
    ord_ = a.get("ord", a.get("p"))
    ord_ = 2.0 if ord_ is None else ord_
    if isinstance(ord_, str):
        raise c.fail(f"unsupported norm p='{ord_}'")
    x = a["self"]
    t = c.out_type()
    dims = _dims(c, x, a.get("dim"))
    extra = {"ord": _f64(float(ord_))}
    return _reduce_op(c, T.VectorNormOp, x, dims, bool(a.get("keepdim") or False), t, extra)


def _arg_reduce(c: Converter, op_cls, x, dim, keepdim, t: TensorType):
    dims = _dims(c, x, dim)
    props = {"dims": _dims_attr(dims), "keepdim": _bool(keepdim)}
    return c.emit(op_cls.create_from([c.value(x)], t, props))


@handles("argmax", to="torch.argmax")
def _argmax(c: Converter, node, x, dim=None, keepdim=False):
    """First index of the maximum along `dim` (row-major over all dims when absent)."""
    return _arg_reduce(c, T.ArgmaxOp, x, dim, keepdim, c.out_type())


@handles("argmin", to="torch.argmin")
def _argmin(c: Converter, node, x, dim=None, keepdim=False):
    """First index of the minimum."""
    return _arg_reduce(c, T.ArgminOp, x, dim, keepdim, c.out_type())


def _extreme_dim(value_cls, index_cls):
    def handler(c: Converter, node, x, dim, keepdim=False):
        values = _reduce_op(c, value_cls, x, _dims(c, x, dim), keepdim, c.out_type(0))
        indices = _arg_reduce(c, index_cls, x, dim, keepdim, c.out_type(1))
        return [values, indices]

    handler.__doc__ = "(values, indices) along `dim`: the first index of the extreme."
    return handler


handles("max.dim", to="torch.amax, torch.argmax")(_extreme_dim(T.AmaxOp, T.ArgmaxOp))
handles("min.dim", to="torch.amin, torch.argmin")(_extreme_dim(T.AminOp, T.ArgminOp))


@handles("max", to="torch.amax")
def _max_all(c: Converter, node, x):
    """The maximum of all elements."""
    return _reduce_op(c, T.AmaxOp, x, _dims(c, x, None), False, c.out_type())


@handles("min", to="torch.amin")
def _min_all(c: Converter, node, x):
    """The minimum of all elements."""
    return _reduce_op(c, T.AminOp, x, _dims(c, x, None), False, c.out_type())


def _softmax_like(op_cls):
    def handler(c: Converter, node, x, dim, dtype_or_half=None):
        t = c.out_type()
        d = norm_dim(dim, c.rank(x))
        return c.emit(
            op_cls.create_from([c.cast(c.value(x), t.element_type)], t, {"dim": IntAttr(d)})
        )

    handler.__doc__ = "Along `dim`."
    return handler


handles("softmax", "_softmax", "_safe_softmax", to="torch.softmax")(_softmax_like(T.SoftmaxOp))
handles("log_softmax", "_log_softmax", to="torch.log_softmax")(_softmax_like(T.LogSoftmaxOp))


# ----------------------------------------------------------------------------- normalisation


def _norm_props(normalized_shape, eps) -> dict[str, Attribute]:
    return {"normalized_rank": IntAttr(len(normalized_shape)), "eps": _f64(eps)}


@handles("rms_norm", to="torch.rms_norm")
def _rms_norm(c: Converter, node, x, normalized_shape, weight=None, eps=None):
    """eps defaults to the dtype's machine epsilon, as PyTorch's."""
    t = c.out_type()
    if eps is None:
        eps = torch.finfo(node.args[0].meta["val"].dtype).eps
    operands = [c.value(x)] + ([c.value(weight)] if weight is not None else [])
    return c.emit(T.RmsNormOp.create_from(operands, t, _norm_props(normalized_shape, eps)))


def _layer_norm_op(c: Converter, x, normalized_shape, weight, bias, eps, t: TensorType):
    operands = [c.value(x)]
    if weight is None and bias is not None:
        operands.append(c.constant(1.0, t.element_type, normalized_shape))
    elif weight is not None:
        operands.append(c.value(weight))
    if bias is not None:
        operands.append(c.value(bias))
    return c.emit(T.LayerNormOp.create_from(operands, t, _norm_props(normalized_shape, eps)))


@handles("layer_norm", to="torch.layer_norm")
def _layer_norm(c: Converter, node, x, normalized_shape, weight=None, bias=None, eps=1e-5, *_):
    """Bias without weight: the weight is a ones constant."""
    return _layer_norm_op(c, x, normalized_shape, weight, bias, eps, c.out_type())


@handles("native_layer_norm", to="torch.layer_norm")
def _native_layer_norm(c: Converter, node, x, normalized_shape, weight, bias, eps):
    """Its output only (not the saved mean / rstd)."""
    return [_layer_norm_op(c, x, normalized_shape, weight, bias, eps, c.out_type(0)), None, None]


def _group_norm_op(c: Converter, x, groups, weight, bias, eps, t: TensorType):
    operands = [c.value(x)]
    if weight is None and bias is not None:
        operands.append(c.constant(1.0, t.element_type, [c.shape(x)[1]]))
    elif weight is not None:
        operands.append(c.value(weight))
    if bias is not None:
        operands.append(c.value(bias))
    props = {"num_groups": IntAttr(int(groups)), "eps": _f64(eps)}
    return c.emit(T.GroupNormOp.create_from(operands, t, props))


@handles("group_norm", to="torch.group_norm")
def _group_norm(c: Converter, node, x, num_groups, weight=None, bias=None, eps=1e-5, *_):
    """Groups of channels (dim 1) normalised over their channels and trailing dims."""
    return _group_norm_op(c, x, num_groups, weight, bias, eps, c.out_type())


@handles("native_group_norm", to="torch.group_norm")
def _native_group_norm(c: Converter, node, x, weight, bias, n, channels, hw, group, eps):
    """Its output only (not the saved mean / rstd)."""
    return [_group_norm_op(c, x, group, weight, bias, eps, c.out_type(0)), None, None]


def _batch_norm_op(c: Converter, x, weight, bias, mean, var, eps, t: TensorType):
    if mean is None or var is None:
        raise c.fail("unsupported batch_norm with batch statistics (no running stats)")
    operands = [c.value(x), c.value(mean), c.value(var)]
    if weight is None and bias is not None:
        operands.append(c.constant(1.0, t.element_type, [c.shape(x)[1]]))
    elif weight is not None:
        operands.append(c.value(weight))
    if bias is not None:
        operands.append(c.value(bias))
    return c.emit(T.BatchNormOp.create_from(operands, t, {"eps": _f64(eps)}))


@handles("batch_norm", to="torch.batch_norm")
def _batch_norm(c: Converter, node, x, weight, bias, mean, var, training, momentum, eps, *_):
    """Inference mode (running statistics) only."""
    if training:
        raise c.fail("unsupported batch_norm in training mode (call .eval() first)")
    return _batch_norm_op(c, x, weight, bias, mean, var, eps, c.out_type())


@handles("_native_batch_norm_legit.no_stats", to="torch.group_norm")
def _batch_norm_batch_stats(c: Converter, node, x, weight, bias, training, momentum, eps):
    """InstanceNorm's batch statistics over a batch of one: a group norm, a group per channel.

    InstanceNorm's decomposition views the instances as the channels of (1, N C, ...), each
    normalised over its trailing dims. Its output only."""
    if c.shape(x)[0] != 1:
        raise c.fail(f"unsupported batch_norm with batch statistics over a batch of {c.shape(x)[0]} (call .eval() first)")
    return [_group_norm_op(c, x, c.shape(x)[1], weight, bias, eps, c.out_type(0)), None, None]


@handles("_native_batch_norm_legit_no_training", to="torch.batch_norm")
def _batch_norm_no_training(c: Converter, node, x, weight, bias, mean, var, momentum, eps):
    """Core ATen's inference batch norm; its output only."""
    return [_batch_norm_op(c, x, weight, bias, mean, var, eps, c.out_type(0)), None, None]


# ----------------------------------------------------------------------------- contractions


@handles("linear", to="torch.linear")
def _linear(c: Converter, node, x, weight, bias=None):
    """x @ weight^T (+ bias)."""
    operands = [c.value(x), c.value(weight)] + ([c.value(bias)] if bias is not None else [])
    return c.emit(T.LinearOp.create_from(operands, c.out_type()))


@handles("matmul", "mm", "bmm", to="torch.matmul")
def _matmul(c: Converter, node, a, b):
    """Batch broadcasting and 1-d operands as torch.matmul."""
    t = c.out_type()
    return c.emit(T.MatmulOp.create_from([c.value(a), c.value(b)], t))


@handles("scaled_dot_product_attention", to="torch.scaled_dot_product_attention")
def _sdpa(
    c: Converter, node, q, k, v, attn_mask=None, dropout_p=0.0, is_causal=False, *,
    scale=None, enable_gqa=False,
):
    """dropout_p = 0; a float mask, or a bool one as 0 / -1e30 (a constant causal one: is_causal)."""
    if dropout_p:
        raise c.fail(f"unsupported scaled_dot_product_attention dropout_p={dropout_p}")
    t = c.out_type()
    operands = [c.value(q), c.value(k), c.value(v)]
    if attn_mask is not None and attn_mask.meta["val"].dtype == torch.bool and attn_mask not in c.consts:
        # an input mask: 0 where attended, else -1e30 (as a constant mask below)
        shape = list(attn_mask.meta["val"].shape)
        attn_mask = _scalar_where(c, c.value(attn_mask), c.constant(0.0, t.element_type),
                                  c.constant(-1e30, t.element_type), TensorType(t.element_type, shape))  # fmt: skip
        operands.append(attn_mask)
        attn_mask = None
    if attn_mask is not None and attn_mask.meta["val"].dtype == torch.bool:
        mask = c.consts[attn_mask]
        L, S = c.shape(q)[-2], c.shape(k)[-2]
        if not is_causal and torch.equal(
            torch.broadcast_to(mask, (*mask.shape[:-2], L, S)),
            torch.ones(L, S, dtype=torch.bool).tril().expand(*mask.shape[:-2], L, S),
        ):
            is_causal, attn_mask = True, None  # the causal mask HF builds: use the flag
        else:
            additive = torch.zeros(mask.shape, dtype=torch.float64).masked_fill(~mask, -1e30)
            operands.append(c.constant(additive.numpy(), t.element_type, mask.shape, f"{node.name}_mask"))
            attn_mask = None
    if attn_mask is not None:
        operands.append(c.cast(c.value(attn_mask), t.element_type))
    if scale is None:
        scale = 1.0 / math.sqrt(c.shape(q)[-1])
    props = {
        "is_causal": _bool(is_causal),
        "scale": _f64(scale),
        "enable_gqa": _bool(enable_gqa),
    }
    return c.emit(T.ScaledDotProductAttentionOp.create_from(operands, t, props))


# ----------------------------------------------------------------------------- shape ops


@handles("view", "reshape", "_unsafe_view", "flatten", "squeeze", "unflatten", "view_as",
         "reshape_as", to="torch.reshape, torch.bitcast")
def _reshape(c: Converter, node, x, *_, **__):
    """The result type's shape (-1 resolved), or view(dtype)'s bits read as that dtype.

    A no-op where shapes agree; `view(dtype)` is a `torch.bitcast` to a dtype of the same
    width (32- or 64-bit: a value conversion would give other numbers)."""
    v, t = c.value(x), c.out_type()
    if node.meta["val"].dtype == x.meta["val"].dtype:
        return _reshaped(c, v, t.get_shape())
    src = v.type.element_type  # type: ignore[attr-defined]
    widths = {T.bit_width(src), T.bit_width(t.element_type),
              8 * node.meta["val"].dtype.itemsize, 8 * x.meta["val"].dtype.itemsize}
    if len(widths) > 1 or not widths <= {32, 64}:
        raise c.fail(f"unsupported view of a {x.meta['val'].dtype} tensor as {node.meta['val'].dtype} "
                     "(bitcasts between 32-bit or between 64-bit types only)")
    return c.emit(T.BitcastOp.create_from([v], t))


def _reshaped(c: Converter, v: SSAValue, shape: Sequence[int]) -> SSAValue:
    """`v` reshaped to `shape` (itself where it has that shape)."""
    t = v.type
    assert isinstance(t, TensorType)
    if list(t.get_shape()) == list(shape):
        return v
    return c.emit(T.ReshapeOp.create_from([v], TensorType(t.element_type, list(shape))))


@handles("contiguous", "clone", "detach", "alias", "lift_fresh_copy", "dropout",
         "feature_dropout", "alpha_dropout", to="(removed)")
def _identity(c: Converter, node, x, *rest, **kw):
    """No-ops in inference (dropout in eval mode)."""
    if "dropout" in str(node.target) and len(rest) > 1 and rest[1]:
        raise c.fail("unsupported dropout in training mode (call .eval() first)")
    return c.cast(c.value(x), c.out_type().element_type)


@handles("to", "_to_copy", "type_as", to="torch.to_dtype")
def _to(c: Converter, node, x, *rest, **kw):
    """A dtype change (removed where the dtype stays)."""
    return c.cast(c.value(x), c.out_type().element_type)


@handles("_assert_tensor_metadata", "_assert_scalar", "sym_constrain_range_for_size",
         to="(removed)")
def _skip(c: Converter, node, *args, **kw):
    """Export's shape assertions."""
    return None


@handles("transpose", to="torch.transpose")
def _transpose(c: Converter, node, x, dim0, dim1):
    """Two dims swapped."""
    r = c.rank(x)
    props = {"dim0": IntAttr(norm_dim(dim0, r)), "dim1": IntAttr(norm_dim(dim1, r))}
    return c.emit(T.TransposeOp.create_from([c.value(x)], c.out_type(), props))


@handles("t", "numpy_T", to="torch.permute")
def _t(c: Converter, node, x):
    """All dims reversed."""
    if c.rank(x) < 2:
        return c.value(x)
    dims = _dims_attr(list(reversed(range(c.rank(x)))))
    return c.emit(T.PermuteOp.create_from([c.value(x)], c.out_type(), {"dims": dims}))


@handles("mT", "mH", "adjoint", to="torch.transpose")
def _matrix_transpose(c: Converter, node, x):
    """The last two dims swapped (`.mT`; `.mH` and `adjoint` of real values)."""
    r = c.rank(x)
    props = {"dim0": IntAttr(r - 2), "dim1": IntAttr(r - 1)}
    return c.emit(T.TransposeOp.create_from([c.value(x)], c.out_type(), props))


@handles("permute", to="torch.permute")
def _permute(c: Converter, node, x, dims):
    """dims normalised to non-negative."""
    r = c.rank(x)
    attr = _dims_attr([norm_dim(d, r) for d in dims])
    return c.emit(T.PermuteOp.create_from([c.value(x)], c.out_type(), {"dims": attr}))


@handles("unsqueeze", to="torch.unsqueeze")
def _unsqueeze(c: Converter, node, x, dim):
    """A unit dim inserted."""
    d = norm_dim(dim, c.rank(x) + 1)
    return c.emit(T.UnsqueezeOp.create_from([c.value(x)], c.out_type(), {"dim": IntAttr(d)}))


@handles("expand", "expand_as", "broadcast_to", to="torch.expand")
def _expand(c: Converter, node, x, *_, **__):
    """Broadcast to the result shape."""
    t = c.out_type()
    v = c.value(x)
    return v if v.type == t else c.emit(T.ExpandOp.create_from([v], t))


def _slice_op(c: Converter, v: SSAValue, shape, dim, start, end, step, t: TensorType):
    size = shape[dim]
    start = 0 if start is None else start
    end = size if end is None else end
    start = max(0, min(size, start + size if start < 0 else start))
    end = max(start, min(size, end + size if end < 0 else end))
    props = {"dim": IntAttr(dim), "start": IntAttr(start), "end": IntAttr(end), "step": IntAttr(step)}
    return c.emit(T.SliceOp.create_from([v], t, props))


def _slice_value(c: Converter, v: SSAValue, dim: int, start: int, end: int) -> SSAValue:
    t = v.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    if start == 0 and end == shape[dim]:
        return v
    out = list(shape)
    out[dim] = end - start
    return _slice_op(c, v, shape, dim, start, end, 1, TensorType(t.element_type, out))


@handles("slice", to="torch.slice")
def _slice(c: Converter, node, x, dim=0, start=None, end=None, step=1):
    """Bounds clamped as Python's; a full slice is removed."""
    shape = c.shape(x)
    d = norm_dim(dim, len(shape))
    t = c.out_type()
    if start in (None, 0) and end in (None,) or (start in (None, 0) and end >= shape[d] and step == 1):
        return c.value(x)
    return _slice_op(c, c.value(x), shape, d, start, end, step, t)


@handles("select", to="torch.slice, torch.reshape")
def _select(c: Converter, node, x, dim, index):
    """One index along a dim: a slice and a reshape."""
    shape = c.shape(x)
    d = norm_dim(dim, len(shape))
    i = norm_dim(index, shape[d])
    kept = list(shape)
    kept[d] = 1
    t = c.out_type()
    s = _slice_op(c, c.value(x), shape, d, i, i + 1, 1, TensorType(t.element_type, kept))
    return c.emit(T.ReshapeOp.create_from([s], t))


def _split_at(c: Converter, x, sizes: Sequence[int], dim: int) -> list[SSAValue]:
    shape = c.shape(x)
    d = norm_dim(dim, len(shape))
    v = c.value(x)
    out, start = [], 0
    for n in sizes:
        out.append(_slice_value(c, v, d, start, start + n))
        start += n
    return out


@handles("split", "split_with_sizes", to="torch.slice")
def _split(c: Converter, node, x, split_size, dim=0):
    """Slices along `dim`, picked by getitem."""
    size = c.shape(x)[norm_dim(dim, c.rank(x))]
    if isinstance(split_size, int):
        sizes = [min(split_size, size - s) for s in range(0, size, split_size)] or [0]
    else:
        sizes = list(split_size)
    return _split_at(c, x, sizes, dim)


@handles("chunk", to="torch.slice")
def _chunk(c: Converter, node, x, chunks, dim=0):
    """Slices of ceil(size / chunks) along `dim`."""
    size = c.shape(x)[norm_dim(dim, c.rank(x))]
    step = -(-size // chunks)
    return _split_at(c, x, [min(step, size - s) for s in range(0, size, step)], dim)


@handles("unbind", to="torch.slice, torch.reshape")
def _unbind(c: Converter, node, x, dim=0):
    """Each index along `dim`, that dim dropped."""
    shape = c.shape(x)
    d = norm_dim(dim, len(shape))
    out_shape = [n for i, n in enumerate(shape) if i != d]
    parts = _split_at(c, x, [1] * shape[d], d)
    return [c.emit(T.ReshapeOp.create_from([p], TensorType(p.type.element_type, out_shape)))  # type: ignore[attr-defined]
            for p in parts]


@handles("cat", "concat", to="torch.cat")
def _cat(c: Converter, node, tensors, dim=0):
    """Empty operands dropped; operands promoted to the result type."""
    t = c.out_type()
    tensors = [x for x in tensors if 0 not in c.shape(x)]
    d = norm_dim(dim, c.rank(tensors[0]))
    operands = [c.cast(c.value(x), t.element_type) for x in tensors]
    return c.emit(T.CatOp.create_from(operands, t, {"dim": IntAttr(d)}))


@handles("stack", to="torch.unsqueeze, torch.cat")
def _stack(c: Converter, node, tensors, dim=0):
    """Each operand unsqueezed at `dim`, then concatenated."""
    t = c.out_type()
    d = norm_dim(dim, c.rank(tensors[0]) + 1)
    parts = []
    for x in tensors:
        parts.append(_unsqueezed(c, c.cast(c.value(x), t.element_type), d))
    if len(parts) == 1:
        return parts[0]
    return c.emit(T.CatOp.create_from(parts, t, {"dim": IntAttr(d)}))


@handles("cartesian_prod", to="torch.reshape, torch.expand, torch.cat")
def _cartesian_prod(c: Converter, node, tensors):
    """Every combination of the 1-d operands' elements, the last varying fastest: operand i laid
    along dim i of their grid, expanded over it, flattened into column i (one operand: itself)."""
    t = c.out_type()
    elem, sizes = t.element_type, [c.shape(x)[0] for x in tensors]
    if len(tensors) == 1:
        return c.cast(c.value(tensors[0]), elem)
    columns = []
    for i, x in enumerate(tensors):
        laid = [1] * len(sizes)
        laid[i] = sizes[i]
        v = c.emit(T.ReshapeOp.create_from([c.cast(c.value(x), elem)], TensorType(elem, laid)))
        v = c.emit(T.ExpandOp.create_from([v], TensorType(elem, sizes)))
        columns.append(c.emit(T.ReshapeOp.create_from([v], TensorType(elem, [math.prod(sizes), 1]))))
    return c.emit(T.CatOp.create_from(columns, t, {"dim": IntAttr(1)}))


@handles("constant_pad_nd", to="torch.slice, torch.cat")
def _constant_pad(c: Converter, node, x, pad, value=0):
    """Constant padding by its third argument, the value (pad_sequence); `pad`'s constant mode."""
    return _pad(c, node, x, pad, "constant", value)


@handles("pad", to="torch.slice, torch.cat, torch.index_select")
def _pad(c: Converter, node, x, pad, mode="constant", value=None):
    """Constant padding: constant blocks concatenated (negative pads slice); the other modes too.

    Reflect, replicate and circular are `_edge_pad`'s, as their own ATen ops below. `pad` lists
    (left, right) pairs from the last dim backwards, as F.pad."""
    if mode in EDGE_PADS:
        return _edge_pad(c, x, pad, mode, node.name)
    if mode != "constant":
        raise c.fail(f"unsupported pad mode '{mode}'")
    v = c.cast(c.value(x), c.out_type().element_type)
    for i in range(len(pad) // 2):
        v = _pad_dim(c, v, c.rank(x) - 1 - i, int(pad[2 * i]), int(pad[2 * i + 1]), 0 if value is None else value)
    return v


def _pad_dim(c: Converter, v: SSAValue, dim: int, lo: int, hi: int, value=0) -> SSAValue:
    """`v` with `lo` elements of `value` before and `hi` after along `dim` (a negative count
    crops)."""
    t = v.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    v = _slice_value(c, v, dim, max(0, -lo), shape[dim] - max(0, -hi))
    shape[dim] -= max(0, -lo) + max(0, -hi)
    parts = [v]
    for n, front in ((max(0, lo), True), (max(0, hi), False)):
        if n:
            block = list(shape)
            block[dim] = n
            const = c.constant(value, t.element_type, block)
            parts.insert(0, const) if front else parts.append(const)
    if len(parts) == 1:
        return v
    shape[dim] += max(0, lo) + max(0, hi)
    return c.emit(T.CatOp.create_from(parts, TensorType(t.element_type, shape), {"dim": IntAttr(dim)}))


#: The F.pad modes that pad with the input's own values.
EDGE_PADS = ("reflect", "replicate", "circular")


def _edge_positions(mode: str, lo: int, hi: int, size: int) -> list[int]:
    """The input position each of the `lo + size + hi` outputs along a padded dim reads: reflect
    mirrors about the edge element (not repeating it), replicate repeats it, circular wraps."""
    if mode == "reflect":
        return [lo - i for i in range(lo)] + list(range(size)) + [size - 2 - j for j in range(hi)]
    if mode == "replicate":
        return [0] * lo + list(range(size)) + [size - 1] * hi
    return [(i - lo) % size for i in range(lo + size + hi)]  # circular


def _edge_pad(c: Converter, x, pad, mode: str, name: str) -> SSAValue:
    """`x` padded by its own values, dim by dim from the last (F.pad's `pad` order): each padded
    dim one read at constant positions (`_pick`), so that a 2-D reflect pad is one elementwise
    kernel, not a concatenation of six slices."""
    t = c.out_type()
    v = c.cast(c.value(x), t.element_type)
    shape = list(c.shape(x))
    for i in range(len(pad) // 2):
        d = len(shape) - 1 - i
        lo, hi = int(pad[2 * i]), int(pad[2 * i + 1])
        if min(lo, hi) < 0 or (mode == "reflect" and max(lo, hi) >= shape[d]) or (
                mode == "circular" and max(lo, hi) > shape[d]):  # fmt: skip
            raise c.fail(f"unsupported {mode} padding of ({lo}, {hi}) on a dim of {shape[d]}")
        if lo or hi:
            v = _pick(c, v, d, _edge_positions(mode, lo, hi, shape[d]), f"{name}_{mode}{d}")
    return v


@handles("reflection_pad1d", "reflection_pad2d", "reflection_pad3d", to="torch.index_select")
def _reflection_pad(c: Converter, node, x, padding):
    """F.pad(mode="reflect"): borders mirrored about the edge element (each pad < the size)."""
    return _edge_pad(c, x, padding, "reflect", node.name)


@handles("replication_pad1d", "replication_pad2d", "replication_pad3d", to="torch.index_select")
def _replication_pad(c: Converter, node, x, padding):
    """F.pad(mode="replicate"): the edge element repeated."""
    return _edge_pad(c, x, padding, "replicate", node.name)


@handles("_pad_circular", to="torch.index_select")
def _circular_pad(c: Converter, node, x, pad):
    """F.pad(mode="circular"): each border taken from the other end (each pad <= the size)."""
    return _edge_pad(c, x, pad, "circular", node.name)


@handles("tril", "triu", to="torch.where")
def _tril(c: Converter, node, x, diagonal=0):
    """x on and below (tril) or above (triu) a diagonal of the last two dims, else 0.

    where(mask, x, 0), the mask a constant of the last two dims (a table when large)."""
    t = c.out_type()
    ones = torch.ones(*c.shape(x)[-2:], dtype=torch.bool)
    upper = node.target._schema.name.endswith("triu")  # type: ignore[union-attr]
    mask = ones.triu(diagonal) if upper else ones.tril(diagonal)
    keep = c.constant(mask.numpy(), IntegerType(1), tuple(mask.shape), f"{node.name}_mask")
    return _scalar_where(c, keep, c.cast(c.value(x), t.element_type), c.constant(0, t.element_type), t)


@handles("repeat", to="torch.reshape, torch.expand")
def _repeat(c: Converter, node, x, repeats):
    """Tiling: x viewed as [1, a, 1, b, ...], expanded to [r0, a, r1, b, ...], reshaped."""
    t = c.out_type()
    shape = list(c.shape(x))
    shape = [1] * (len(repeats) - len(shape)) + shape
    inter = [n for s in shape for n in (1, s)]
    big = [n for r, s in zip(repeats, shape) for n in (r, s)]
    v = c.emit(T.ReshapeOp.create_from([c.value(x)], TensorType(t.element_type, inter)))
    v = c.emit(T.ExpandOp.create_from([v], TensorType(t.element_type, big)))
    return c.emit(T.ReshapeOp.create_from([v], t))


@handles("flip", to="torch.flip")
def _flip(c: Converter, node, x, dims):
    """Reversed along `dims`."""
    attr = _dims_attr(sorted(norm_dim(d, c.rank(x)) for d in dims))
    return c.emit(T.FlipOp.create_from([c.value(x)], c.out_type(), {"dims": attr}))


@handles("repeat_interleave.Tensor", to="torch.cumsum, torch.add, torch.minimum, torch.sub, torch.le, torch.logical_and, torch.where, torch.reshape, torch.embedding")
def _repeat_interleave(c: Converter, node, repeats, *, output_size=None):
    """The indices 0, 1, .. each repeated by its count in the 1-d `repeats` (which
    repeat_interleave of a tensor then selects), `output_size` of them: each position's index
    by a binary search of the running sums of the counts (`_search_sorted`)."""
    if output_size is None:
        raise c.fail("unsupported repeat_interleave with tensor repeats and no output_size (the result's shape depends on the data: pass output_size)")
    t = c.out_type()
    i64 = IntegerType(64)
    counts = c.cast(c.value(repeats), i64)
    ends = _blocked_cumsum(c, counts, 0)
    index = _search_sorted(c, ends, _iota(c, 1, 0, int(output_size)), right=True)
    last = max(c.shape(repeats)[0] - 1, 0)  # past the counts' sum (a larger output_size): the last index
    return c.cast(_op(c, T.MinimumOp, index.type, index, last), t.element_type)  # type: ignore[arg-type]


@handles("embedding", to="torch.embedding")
def _embedding(c: Converter, node, weight, indices, *rest):
    """Rows of the table (padding_idx only matters for training)."""
    return c.emit(T.EmbeddingOp.create_from([c.value(weight), c.value(indices)], c.out_type()))


@handles("embedding_bag", "_embedding_bag", to="torch.reshape, torch.embedding, torch.mul, torch.sum, torch.mean, torch.amax, torch.add, torch.minimum, torch.le, torch.logical_and, torch.where, torch.sub, torch.scatter_reduce, torch.expand, torch.slice, torch.cat, torch.ne, torch.div, torch.maximum, torch.gt")
def _embedding_bag(c: Converter, node, weight, indices, offsets, scale_grad_by_freq=False, mode=0,
                   sparse=False, per_sample_weights=None, include_last_offset=False, padding_idx=None):  # fmt: skip
    """Sums, means or maxima of the table's rows over bags of indices (`offsets` their starts):
    bags of one length (nn.EmbeddingBag on a 2-d input) as (bags, length, dim) reduced over
    the length, others by `_ragged_bags`; per_sample_weights scale a sum."""
    t = c.out_type(0)
    known = c.consts.get(offsets) if isinstance(offsets, fx.Node) else None
    padded = padding_idx is not None and padding_idx >= 0
    n = c.shape(indices)[0] if len(c.shape(indices)) == 1 else -1
    length = _bag_length(known, n, bool(include_last_offset))
    if known is None or padded or length == 0:
        return [_ragged_bags(c, weight, indices, offsets, int(mode), per_sample_weights,
                             bool(include_last_offset), padding_idx if padded else None), None, None, None]  # fmt: skip
    bags = n // length
    d = c.shape(weight)[1]
    i64 = IntegerType(64)
    idx = c.emit(T.ReshapeOp.create_from([c.cast(c.value(indices), i64)], TensorType(i64, [bags, length])))
    rows_t = TensorType(t.element_type, [bags, length, d])
    rows = c.emit(T.EmbeddingOp.create_from([c.cast(c.value(weight), t.element_type), idx], rows_t))
    if per_sample_weights is not None:
        w = c.emit(T.ReshapeOp.create_from([c.cast(c.value(per_sample_weights), t.element_type)],
                                           TensorType(t.element_type, [bags, length, 1])))
        rows = c.emit(T.MulOp.create_from([rows, w], rows_t))
    red = {0: T.SumOp, 1: T.MeanOp, 2: T.AmaxOp}[int(mode)]
    return [c.emit(red(rows, [1], False, t)), None, None, None]


def _bag_length(known, n: int, include_last_offset: bool) -> int:
    """The one length of every bag where the offsets are a known arange over the n indices
    (a 1-d index), else 0."""
    if known is None or n < 0:
        return 0
    starts = [int(v) for v in torch.as_tensor(known).reshape(-1)]
    if include_last_offset:
        if starts[-1:] != [n]:
            return 0
        starts = starts[:-1]
    length = n // len(starts) if starts and n % len(starts) == 0 else 0
    return length if length and starts == list(range(0, n, length)) else 0


def _ragged_bags(c: Converter, weight, indices, offsets, mode: int, per_sample_weights,
                 include_last_offset: bool, padding_idx: int | None) -> SSAValue:  # fmt: skip
    """embedding_bag over bags of any lengths (`offsets` a run-time tensor or not): each index's bag
    found by a binary search of the offsets (`_segment_ids`), its row (times its per-sample
    weight) scattered into that bag (`_segment_fold`: atomics, work in proportion to the
    indices). A bag's size is the difference of its offsets (with a padding_idx, the count of
    its other indices); an empty bag is 0 in every mode, a mean divides by the size. With
    include_last_offset indices from the last offset on count nowhere (PyTorch's CPU mean and
    max still take them; its documented use ends the offsets at the indices' count)."""
    t = c.out_type(0)
    elem, (bags, d) = t.element_type, t.get_shape()
    i64 = IntegerType(64)
    n = math.prod(c.shape(indices))
    idx = c.emit(T.ReshapeOp.create_from([c.cast(c.value(indices), i64)], TensorType(i64, [n])))
    off = c.cast(c.value(offsets), i64)
    seg = _segment_ids(c, off, n)  # past the last bag (include_last_offset): id `bags`, dropped
    spare = int(include_last_offset)
    rows_t = TensorType(elem, [n, d])
    rows = c.emit(T.EmbeddingOp.create_from([c.cast(c.value(weight), elem), idx], rows_t))
    if per_sample_weights is not None:
        w = c.emit(T.ReshapeOp.create_from([c.cast(c.value(per_sample_weights), elem)], TensorType(elem, [n, 1])))
        rows = c.emit(T.MulOp.create_from([rows, w], rows_t))
    kind = "max" if mode == 2 else "sum"
    column = TensorType(elem, [bags, 1])
    if padding_idx is None:
        after = _slice_value(c, off, 0, 1, bags + spare)  # the next bags' starts (and the end)
        ends = after if include_last_offset else _pad_dim(c, after, 0, 0, 1, n)
        size = c.cast(c.emit(T.SubOp.create_from([ends, _slice_value(c, off, 0, 0, bags)], ends.type)), elem)
        size = _reshaped(c, size, [bags, 1])
    else:
        keep = _op(c, T.NeOp, TensorType(IntegerType(1), [n]), idx, padding_idx)
        rows = _scalar_where(c, _reshaped(c, keep, [n, 1]), rows, c.constant(0.0 if kind == "sum" else -math.inf, elem), rows_t)
        size = _segment_fold(c, _reshaped(c, c.cast(keep, elem), [n, 1]), 0, _reshaped(c, seg, [n, 1]), bags + spare, "sum")
        size = _slice_value(c, size, 0, 0, bags)
    seg = c.emit(T.ExpandOp.create_from([_reshaped(c, seg, [n, 1])], TensorType(i64, [n, d])))
    out = _slice_value(c, _segment_fold(c, rows, 0, seg, bags + spare, kind), 0, 0, bags)
    if mode == 1:
        out = c.emit(T.DivOp.create_from([out, _op(c, T.MaximumOp, column, size, 1.0)], t))
    elif mode == 2:
        filled = _op(c, T.GtOp, _bool_type(column), size, 0.0)
        out = _scalar_where(c, filled, out, c.constant(0.0, elem), t)
    return out


@handles("index_select", to="torch.index_select")
def _index_select(c: Converter, node, x, dim, index):
    """Slices along `dim` picked by a 1-d index tensor."""
    d = norm_dim(dim, c.rank(x))
    return c.emit(T.IndexSelectOp.create_from([c.value(x), c.value(index)], c.out_type(), {"dim": IntAttr(d)}))


@handles("zeros_like", "ones_like", "full_like", "empty_like", "fill", "new_zeros",
         "new_ones", "new_full", "new_empty", "scalar_tensor", "full", "zeros", "ones",
         to="torch.constant")
def _filled(c: Converter, node, *args, **kwargs):
    """A constant of the result's shape (empty_like and new_empty: zeros); a fill by a 0-d
    tensor (`x[:, ::2] = 1.0` fills its slice with a lifted constant) is that value expanded."""
    name = node.target._schema.name.split("::")[1]  # type: ignore[union-attr]
    a = bound_args(node)
    value = {"zeros_like": 0, "ones_like": 1, "empty_like": 0, "new_zeros": 0, "new_ones": 1,
             "new_empty": 0, "zeros": 0, "ones": 1}.get(name)  # fmt: skip
    if value is None:
        value = a.get("fill_value", a.get("value", a.get("s")))
    t = c.out_type()
    if isinstance(value, fx.Node):
        if c.shape(value) != ():
            raise c.fail(f"unsupported {node.target} with a fill value of shape {list(c.shape(value))}")
        return c.emit(T.ExpandOp.create_from([c.cast(c.value(value), t.element_type)], t))
    return c.constant(value, t.element_type, t.get_shape())


# ----------------------------------------------------------------------------- compositions
# ATen ops without a torch op of their own: each handler writes them with the ops above.


def _scalar_where(c: Converter, cond: SSAValue, a: SSAValue, b: SSAValue, t: TensorType) -> SSAValue:
    return c.emit(T.WhereOp.create_from([cond, a, b], t))


def _bool_type(t: TensorType) -> TensorType:
    return TensorType(IntegerType(1), t.get_shape())


@handles("hardshrink", to="torch.abs, torch.gt, torch.where")
def _hardshrink(c: Converter, node, x, lambd=0.5):
    """where(abs(x) > lambd, x, 0)."""
    t = c.out_type()
    v = c.value(x)
    big = c.emit(T.GtOp.create_from([c.emit(T.AbsOp.create_from([v], t)), c.constant(lambd, t.element_type)], _bool_type(t)))
    return _scalar_where(c, big, v, c.constant(0.0, t.element_type), t)


@handles("softshrink", to="torch.gt, torch.lt, torch.sub, torch.add, torch.where")
def _softshrink(c: Converter, node, x, lambd=0.5):
    """where(x > lambd, x - lambd, where(x < -lambd, x + lambd, 0))."""
    t = c.out_type()
    v, lam = c.value(x), c.constant(lambd, t.element_type)
    neg = c.constant(-lambd, t.element_type)
    above = c.emit(T.GtOp.create_from([v, lam], _bool_type(t)))
    below = c.emit(T.LtOp.create_from([v, neg], _bool_type(t)))
    low = _scalar_where(c, below, c.emit(T.AddOp.create_from([v, lam], t)), c.constant(0.0, t.element_type), t)
    return _scalar_where(c, above, c.emit(T.SubOp.create_from([v, lam], t)), low, t)


@handles("prelu", to="torch.gt, torch.mul, torch.where")
def _prelu(c: Converter, node, x, weight):
    """where(x > 0, x, weight * x); a weight of C values is per channel (dim 1)."""
    t = c.out_type()
    v, w = c.value(x), c.value(weight)
    wshape = c.shape(weight)
    if wshape not in ((), (1,)):
        per_channel = [1] * len(t.get_shape())
        per_channel[1] = wshape[0]
        w = c.emit(T.ReshapeOp.create_from([w], TensorType(t.element_type, per_channel)))
    pos = c.emit(T.GtOp.create_from([v, c.constant(0.0, t.element_type)], _bool_type(t)))
    return _scalar_where(c, pos, v, c.emit(T.MulOp.create_from([v, w], t)), t)


@handles("glu", to="torch.slice, torch.sigmoid, torch.mul")
def _glu(c: Converter, node, x, dim=-1):
    """First half * sigmoid(second half) along `dim`."""
    t = c.out_type()
    d = norm_dim(dim, c.rank(x))
    half = c.shape(x)[d] // 2
    a, b = _split_at(c, x, [half, half], d)
    return c.emit(T.MulOp.create_from([a, c.emit(T.SigmoidOp.create_from([b], b.type))], t))


@handles("hypot", to="torch.abs, torch.maximum, torch.minimum, torch.div, torch.mul, torch.sqrt, torch.isnan, torch.isinf, torch.where")
def _hypot(c: Converter, node, a, b):
    """sqrt(a^2 + b^2) without overflow, as C's hypot: m * sqrt(1 + (n / m)^2), m >= n the magnitudes.

    0 where both are 0; inf where either is inf (even beside a NaN), else NaN beside a NaN, as
    PyTorch. NaN and inf are decided by wheres of their own, so they hold where maximum drops a
    NaN (CUDA's fmaxf)."""
    t = c.out_type()
    elem = t.element_type  # (PyTorch has no integer hypot)
    x, y = _operand(c, a, elem), _operand(c, b, elem)
    ax, ay = c.emit(T.AbsOp.create_from([x], x.type)), c.emit(T.AbsOp.create_from([y], y.type))
    m = c.emit(T.MaximumOp.create_from([ax, ay], t))
    r = c.emit(T.DivOp.create_from([c.emit(T.MinimumOp.create_from([ax, ay], t)), m], t))
    one = c.emit(T.AddOp.create_from([c.constant(1.0, elem), c.emit(T.MulOp.create_from([r, r], t))], t))
    out = c.emit(T.MulOp.create_from([m, c.emit(T.SqrtOp.create_from([one], t))], t))
    zero = c.emit(T.EqOp.create_from([m, c.constant(0.0, elem)], _bool_type(t)))
    out = _scalar_where(c, zero, c.constant(0.0, elem), out, t)
    # |a| + |b| is NaN exactly where a or b is (no inf - inf: both are non-negative)
    nan = c.emit(T.IsnanOp.create_from([c.emit(T.AddOp.create_from([ax, ay], t))], _bool_type(t)))
    out = _scalar_where(c, nan, c.constant(math.nan, elem), out, t)
    inf = c.emit(T.LogicalOrOp.create_from([c.emit(T.IsinfOp.create_from([x], _bool_type(x.type))),  # type: ignore[arg-type]
                                            c.emit(T.IsinfOp.create_from([y], _bool_type(y.type)))], _bool_type(t)))  # type: ignore[arg-type]  # fmt: skip
    return _scalar_where(c, inf, c.constant(math.inf, elem), out, t)


#: Giles, "Approximating the erfinv function" (GPU Computing Gems, 2010), double precision:
#: erfinv(x) = x * p(w), w = -log((1 - x)(1 + x)), p a polynomial in w - 3.125 for w < 6.25, in
#: sqrt(w) - 3.25 for w < 16, else in sqrt(w) - 5 (highest degree first).
ERFINV_CENTRAL = (
    -3.6444120640178196996e-21, -1.685059138182016589e-19, 1.2858480715256400167e-18,
    1.115787767802518096e-17, -1.333171662854620906e-16, 2.0972767875968561637e-17,
    6.6376381343583238325e-15, -4.0545662729752068639e-14, -8.1519341976054721522e-14,
    2.6335093153082322977e-12, -1.2975133253453532498e-11, -5.4154120542946279317e-11,
    1.051212273321532285e-09, -4.1126339803469836976e-09, -2.9070369957882005086e-08,
    4.2347877827932403518e-07, -1.3654692000834678645e-06, -1.3882523362786468719e-05,
    0.0001867342080340571352, -0.00074070253416626697512, -0.0060336708714301490533,
    0.24015818242558961693, 1.6536545626831027356,
)
ERFINV_TAIL = (
    2.2137376921775787049e-09, 9.0756561938885390979e-08, -2.7517406297064545428e-07,
    1.8239629214389227755e-08, 1.5027403968909827627e-06, -4.013867526981545969e-06,
    2.9234449089955446044e-06, 1.2475304481671778723e-05, -4.7318229009055733981e-05,
    6.8284851459573175448e-05, 2.4031110387097893999e-05, -0.0003550375203628474796,
    0.00095328937973738049703, -0.0016882755560235047313, 0.0024914420961078508066,
    -0.0037512085075692412107, 0.005370914553590063617, 1.0052589676941592334,
    3.0838856104922207635,
)
ERFINV_FAR_TAIL = (
    -2.7109920616438573243e-11, -2.5556418169965252055e-10, 1.5076572693500548083e-09,
    -3.7894654401267369937e-09, 7.6157012080783393804e-09, -1.4960026627149240478e-08,
    2.9147953450901080826e-08, -6.7711997758452339498e-08, 2.2900482228026654717e-07,
    -9.9298272942317002539e-07, 4.5260625972231537039e-06, -1.9681778105531670567e-05,
    7.5995277030017761139e-05, -0.00021503011930044477347, -0.00013871931833623122026,
    1.0103004648645343977, 4.8499064014085844221,
)


def _op(c: Converter, op_cls, t: TensorType, *operands) -> SSAValue:
    """`op_cls` of `operands` as `t`: SSA values, or Python numbers (0-d constants of the element
    type of the operands that are values)."""
    elem = next(v.type.element_type for v in operands if isinstance(v, SSAValue))  # type: ignore[attr-defined]
    values = [v if isinstance(v, SSAValue) else c.constant(v, elem) for v in operands]
    return c.emit(op_cls.create_from(values, t))


def _horner(c: Converter, coeffs: Sequence[float], w: SSAValue) -> SSAValue:
    """The polynomial with `coeffs` (highest degree first) at `w` by Horner's rule: a chain of
    multiply-adds that fuse into one elementwise kernel. (A sum over a new dim of coeffs[k] *
    w^(n - 1 - k) ran a pow per term, spread by the row-reduction schedule over 8 lanes:
    session 44, bench/results/session44.)"""
    t = w.type
    acc = _op(c, T.MulOp, t, w, coeffs[0])
    for k, coeff in enumerate(coeffs[1:]):
        acc = _op(c, T.AddOp, t, acc, coeff)
        if k < len(coeffs) - 2:
            acc = _op(c, T.MulOp, t, acc, w)
    return acc


@handles("erfinv", to="torch.sub, torch.add, torch.mul, torch.neg, torch.log, torch.sqrt, torch.lt, torch.abs, torch.eq, torch.where")
def _erfinv(c: Converter, node, x):
    """Giles' double-precision approximation: x * p(w), w = -log(1 - x^2), p by three polynomials.

    +-inf at +-1; beyond, (1 - x)(1 + x) is negative and its log NaN. (1 - x)(1 + x) loses
    nothing near |x| = 1. Against PyTorch's float64 erfinv (the polynomials by Horner's rule):
    5e-16 relative in float64 over [-1, 1] and within 1e-15 of 1, and in float32 the error
    PyTorch's float32 erfinv has (session 44). (Giles' single-precision version with a Newton
    step on erf, y -= (erf(y) - x) sqrt(pi)/2 exp(y^2), misses float64 there: 1e-9 at 1 - 1e-8,
    1e-3 at 1 - 1e-12, where erf's rounding near 1 over its slope swamps y.) Each branch is
    computed, one picked."""
    t = c.out_type()
    v = _operand(c, x, t.element_type)
    w = _op(c, T.NegOp, t, _op(c, T.LogOp, t, _op(c, T.MulOp, t, _op(c, T.SubOp, t, 1.0, v), _op(c, T.AddOp, t, v, 1.0))))
    s = _op(c, T.SqrtOp, t, w)
    central = _horner(c, ERFINV_CENTRAL, _op(c, T.SubOp, t, w, 3.125))
    tail = _horner(c, ERFINV_TAIL, _op(c, T.SubOp, t, s, 3.25))
    far = _horner(c, ERFINV_FAR_TAIL, _op(c, T.SubOp, t, s, 5.0))
    p = _scalar_where(c, _op(c, T.LtOp, _bool_type(t), w, 16.0), tail, far, t)
    p = _scalar_where(c, _op(c, T.LtOp, _bool_type(t), w, 6.25), central, p, t)
    # at +-1, w = inf and the polynomials are no number: x * inf
    edge = _op(c, T.EqOp, _bool_type(t), _op(c, T.AbsOp, t, v), 1.0)
    return _scalar_where(c, edge, _op(c, T.MulOp, t, v, math.inf), _op(c, T.MulOp, t, p, v), t)


def _erfcx_y100(c: Converter, y100: SSAValue) -> SSAValue:
    """ATen's erfcx_y100: erfcx(x) for x >= 0 from y100 = 400 / (4 + x) in (0, 100], the
    polynomial of ERFCX_Y100[k], k = int(y100), in 2 y100 - (2k + 1), its 7 coefficients
    looked up in one table (an argument of @main) by Horner's rule; 1 at y100 = 100 (x = 0)."""
    t = y100.type
    assert isinstance(t, TensorType)
    i64 = TensorType(IntegerType(64), t.get_shape())
    k = _op(c, T.MinimumOp, i64, c.cast(y100, IntegerType(64)), 99)
    table = c.constant([v for row in ERFCX_Y100 for v in row], t.element_type, (7 * len(ERFCX_Y100),), "erfcx_y100")
    at = _op(c, T.MulOp, i64, k, 7)
    coeffs = [_flat_lookup(c, table, _op(c, T.AddOp, i64, at, j) if j else at) for j in range(7)]
    u = _op(c, T.SubOp, t, _op(c, T.MulOp, t, y100, 2.0), _op(c, T.AddOp, t, _op(c, T.MulOp, t, c.cast(k, t.element_type), 2.0), 1.0))
    acc = coeffs[6]
    for coeff in reversed(coeffs[:6]):
        acc = _op(c, T.AddOp, t, coeff, _op(c, T.MulOp, t, acc, u))
    return _scalar_where(c, _op(c, T.GeOp, _bool_type(t), y100, 100.0), c.constant(1.0, t.element_type), acc, t)


def _erfcx(c: Converter, v: SSAValue) -> SSAValue:
    """exp(x^2) erfc(x) as ATen's calc_erfcx (Johnson's Faddeeva erfcx): the Chebyshev table
    (`_erfcx_y100`) for 0 <= x <= 50, beyond a 5-term continued fraction (1 / (sqrt(pi) x) past
    5e7, where that would overflow); below 0, 2 exp(x^2) - erfcx(-x) (the table dropped below
    -6.1, inf below -26.7). Every branch computed, one picked; NaN stays NaN."""
    t = v.type
    assert isinstance(t, TensorType)
    b = _bool_type(t)
    a = _op(c, T.AbsOp, t, v)
    near = _scalar_where(c, _op(c, T.LeOp, b, a, 50.0), a, c.constant(0.0, t.element_type), t)  # NaN too
    table = _erfcx_y100(c, _op(c, T.DivOp, t, 400.0, _op(c, T.AddOp, t, near, 4.0)))
    ispi = 0.56418958354775628694807945156  # 1 / sqrt(pi)
    xx = _op(c, T.MulOp, t, v, v)
    num = _op(c, T.MulOp, t, ispi, _op(c, T.AddOp, t, _op(c, T.MulOp, t, xx, _op(c, T.AddOp, t, xx, 4.5)), 2.0))
    den = _op(c, T.MulOp, t, v, _op(c, T.AddOp, t, _op(c, T.MulOp, t, xx, _op(c, T.AddOp, t, xx, 5.0)), 3.75))
    far = _scalar_where(c, _op(c, T.GtOp, b, v, 5e7), _op(c, T.DivOp, t, ispi, v), _op(c, T.DivOp, t, num, den), t)
    positive = _scalar_where(c, _op(c, T.GtOp, b, v, 50.0), far, table, t)
    twice = _op(c, T.MulOp, t, _op(c, T.ExpOp, t, xx), 2.0)
    negative = _scalar_where(c, _op(c, T.LtOp, b, v, -6.1), twice, _op(c, T.SubOp, t, twice, table), t)
    negative = _scalar_where(c, _op(c, T.LtOp, b, v, -26.7), c.constant(math.inf, t.element_type), negative, t)
    return _scalar_where(c, _op(c, T.GeOp, b, v, 0.0), positive, negative, t)


@handles("special_erfcx", to="torch.abs, torch.add, torch.sub, torch.mul, torch.div, torch.exp, torch.to_dtype, torch.minimum, torch.embedding, torch.reshape, torch.lt, torch.le, torch.gt, torch.ge, torch.where")
def _special_erfcx(c: Converter, node, x):
    """exp(x^2) erfc(x), finite where erfc underflows, as ATen computes it (`_erfcx`).

    Against PyTorch's float64 erfcx: within a few ulps over [-26, 1e8], the same infinities
    (x < -26.7) and NaNs. In float32 the same steps in float32, as PyTorch's."""
    t = c.out_type()
    return _erfcx(c, _operand(c, x, t.element_type))


def _erfc(c: Converter, v: SSAValue) -> SSAValue:
    """erfc(x): 1 - erf(x) for |x| < 0.5 (nothing cancels there), beyond exp(-x^2) erfcx(|x|)
    (`_erfcx`), from 2 for x < 0. Exact but for exp(-x^2)'s rounding of x^2: x^2 ulps of
    error, 7e-14 relative where float64's erfc underflows (26.5), 5e-6 where float32's does."""
    t = v.type
    assert isinstance(t, TensorType)
    b = _bool_type(t)
    a = _op(c, T.AbsOp, t, v)
    tail = _op(c, T.MulOp, t, _op(c, T.ExpOp, t, _op(c, T.NegOp, t, _op(c, T.MulOp, t, a, a))), _erfcx(c, a))
    tail = _scalar_where(c, _op(c, T.LtOp, b, v, 0.0), _op(c, T.SubOp, t, 2.0, tail), tail, t)
    small = _op(c, T.SubOp, t, 1.0, c.emit(T.ErfOp.create_from([v], t)))
    return _scalar_where(c, _op(c, T.LtOp, b, a, 0.5), small, tail, t)


@handles("erfc", "special_erfc", to="torch.erf, torch.abs, torch.neg, torch.add, torch.sub, torch.mul, torch.div, torch.exp, torch.to_dtype, torch.minimum, torch.embedding, torch.reshape, torch.lt, torch.le, torch.gt, torch.ge, torch.where")
def _erfc_handler(c: Converter, node, x):
    """1 - erf(x), without its cancellation: exp(-x^2) erfcx(|x|) past |x| = 0.5 (`_erfc`)."""
    t = c.out_type()
    return _erfc(c, _operand(c, x, t.element_type))


@handles("special_log_ndtr", to="torch.erf, torch.abs, torch.neg, torch.add, torch.sub, torch.mul, torch.div, torch.exp, torch.log, torch.log1p, torch.to_dtype, torch.minimum, torch.embedding, torch.reshape, torch.lt, torch.le, torch.gt, torch.ge, torch.where")
def _log_ndtr(c: Converter, node, x):
    """log of the standard normal CDF as ATen's calc_log_ndtr: with t = x / sqrt(2),
    log(erfcx(-t) / 2) - t^2 for x < -1 (no underflow: finite far into the left tail),
    else log1p(-erfc(t) / 2) (`_erfcx`, `_erfc`). Both computed, one picked."""
    t = c.out_type()
    v = _operand(c, x, t.element_type)
    s = _op(c, T.MulOp, t, v, 0.707106781186547524400844362104849039)
    left = _op(c, T.SubOp, t, _op(c, T.LogOp, t, _op(c, T.DivOp, t, _erfcx(c, _op(c, T.NegOp, t, s)), 2.0)), _op(c, T.MulOp, t, s, s))
    right = _op(c, T.Log1pOp, t, _op(c, T.DivOp, t, _op(c, T.NegOp, t, _erfc(c, s)), 2.0))
    return _scalar_where(c, _op(c, T.LtOp, _bool_type(t), v, -1.0), left, right, t)


#: Cephes ndtri.c (Moshier), as ATen's calc_ndtri has it: rational approximations (highest
#: degree first) of the central part, |y - 0.5| <= 3/8, in (y - 0.5)^2, and of the tails in
#: z = 1 / sqrt(-2 log y) for sqrt(-2 log y) below 8 (P1, Q1) and from 8 on (P2, Q2).
NDTRI_P0 = (-5.99633501014107895267E1, 9.80010754185999661536E1, -5.66762857469070293439E1, 1.39312609387279679503E1,
            -1.23916583867381258016E0)
NDTRI_Q0 = (1.00000000000000000000E0, 1.95448858338141759834E0, 4.67627912898881538453E0, 8.63602421390890590575E1,
            -2.25462687854119370527E2, 2.00260212380060660359E2, -8.20372256168333339912E1, 1.59056225126211695515E1,
            -1.18331621121330003142E0)
NDTRI_P1 = (4.05544892305962419923E0, 3.15251094599893866154E1, 5.71628192246421288162E1, 4.40805073893200834700E1,
            1.46849561928858024014E1, 2.18663306850790267539E0, -1.40256079171354495875E-1, -3.50424626827848203418E-2,
            -8.57456785154685413611E-4)
NDTRI_Q1 = (1.00000000000000000000E0, 1.57799883256466749731E1, 4.53907635128879210584E1, 4.13172038254672030440E1,
            1.50425385692907503408E1, 2.50464946208309415979E0, -1.42182922854787788574E-1, -3.80806407691578277194E-2,
            -9.33259480895457427372E-4)
NDTRI_P2 = (3.23774891776946035970E0, 6.91522889068984211695E0, 3.93881025292474443415E0, 1.33303460815807542389E0,
            2.01485389549179081538E-1, 1.23716634817820021358E-2, 3.01581553508235416007E-4, 2.65806974686737550832E-6,
            6.23974539184983293730E-9)
NDTRI_Q2 = (1.00000000000000000000E0, 6.02427039364742014255E0, 3.67983563856160859403E0, 1.37702099489081330271E0,
            2.16236993594496635890E-1, 1.34204006088543189037E-2, 3.28014464682127739104E-4, 2.89247864745380683936E-6,
            6.79019408009981274425E-9)
EXP_MINUS_2 = 0.13533528323661269189


def _scaled_ratio(c: Converter, s: SSAValue, num: Sequence[float], den: Sequence[float], w: SSAValue) -> SSAValue:
    """s num(w) / den(w) in Cephes' order ((s num) / den), both by Horner's rule."""
    return _op(c, T.DivOp, w.type, _op(c, T.MulOp, w.type, s, _horner(c, num, w)), _horner(c, den, w))


@handles("special_ndtri", to="torch.sub, torch.add, torch.mul, torch.div, torch.log, torch.sqrt, torch.neg, torch.lt, torch.gt, torch.eq, torch.logical_or, torch.where")
def _ndtri(c: Converter, node, y):
    """The inverse of the standard normal CDF as Cephes' ndtri (ATen's calc_ndtri).

    For exp(-2) < y < 1 - exp(-2): u + u w P0(w) / Q0(w) times sqrt(2 pi), u = y - 0.5,
    w = u^2; beyond, with y the nearer tail's mass (1 - y above) and x = sqrt(-2 log y):
    x - log(x) / x - P(1 / x) / (x Q(1 / x)), by P1/Q1 below x = 8 and P2/Q2 from 8 on,
    negated below 0.5. -inf at 0, inf at 1, NaN outside [0, 1]. Each branch computed, one
    picked."""
    t = c.out_type()
    b = _bool_type(t)
    v = _operand(c, y, t.element_type)
    u = _op(c, T.SubOp, t, v, 0.5)
    w = _op(c, T.MulOp, t, u, u)
    central = _op(c, T.AddOp, t, u, _op(c, T.MulOp, t, u, _scaled_ratio(c, w, NDTRI_P0, NDTRI_Q0, w)))
    central = _op(c, T.MulOp, t, central, 2.50662827463100050242E0)
    upper = _op(c, T.GtOp, b, v, 1.0 - EXP_MINUS_2)
    m = _scalar_where(c, upper, _op(c, T.SubOp, t, 1.0, v), v, t)
    x = _op(c, T.SqrtOp, t, _op(c, T.MulOp, t, _op(c, T.LogOp, t, m), -2.0))
    z = _op(c, T.DivOp, t, 1.0, x)
    near, far = _scaled_ratio(c, z, NDTRI_P1, NDTRI_Q1, z), _scaled_ratio(c, z, NDTRI_P2, NDTRI_Q2, z)
    tail = _op(c, T.SubOp, t, _op(c, T.SubOp, t, x, _op(c, T.DivOp, t, _op(c, T.LogOp, t, x), x)),
               _scalar_where(c, _op(c, T.LtOp, b, x, 8.0), near, far, t))
    tail = _scalar_where(c, upper, tail, _op(c, T.NegOp, t, tail), t)
    out = _scalar_where(c, _op(c, T.GtOp, b, m, EXP_MINUS_2), central, tail, t)
    outside = c.emit(T.LogicalOrOp.create_from([_op(c, T.LtOp, b, v, 0.0), _op(c, T.GtOp, b, v, 1.0)], b))
    out = _scalar_where(c, outside, c.constant(math.nan, t.element_type), out, t)
    out = _scalar_where(c, _op(c, T.EqOp, b, v, 1.0), c.constant(math.inf, t.element_type), out, t)
    return _scalar_where(c, _op(c, T.EqOp, b, v, 0.0), c.constant(-math.inf, t.element_type), out, t)


#: Cephes i0.c (Moshier): Chebyshev coefficients (highest order first) of exp(-x) I0(x) on
#: [0, 8] in x / 4 - 1, and of exp(-x) sqrt(x) I0(x) on (8, inf) in 16 / x - 1.
I0_SMALL = (
    -4.4153416464793395e-18, 3.3307945188222384e-17, -2.431279846547955e-16, 1.715391285555133e-15,
    -1.1685332877993451e-14, 7.676185498604936e-14, -4.856446783111929e-13, 2.95505266312964e-12,
    -1.726826291441556e-11, 9.675809035373237e-11, -5.189795601635263e-10, 2.6598237246823866e-09,
    -1.300025009986248e-08, 6.046995022541919e-08, -2.670793853940612e-07, 1.1173875391201037e-06,
    -4.4167383584587505e-06, 1.6448448070728896e-05, -5.754195010082104e-05,
    0.00018850288509584165, -0.0005763755745385824, 0.0016394756169413357, -0.004324309995050576,
    0.010546460394594998, -0.02373741480589947, 0.04930528423967071, -0.09490109704804764,
    0.17162090152220877, -0.3046826723431984, 0.6767952744094761,
)
I0_LARGE = (
    -7.233180487874754e-18, -4.830504485944182e-18, 4.46562142029676e-17, 3.461222867697461e-17,
    -2.8276239805165836e-16, -3.425485619677219e-16, 1.7725601330565263e-15,
    3.8116806693526224e-15, -9.554846698828307e-15, -4.150569347287222e-14, 1.54008621752141e-14,
    3.8527783827421426e-13, 7.180124451383666e-13, -1.7941785315068062e-12,
    -1.3215811840447713e-11, -3.1499165279632416e-11, 1.1889147107846439e-11, 4.94060238822497e-10,
    3.3962320257083865e-09, 2.266668990498178e-08, 2.0489185894690638e-07, 2.8913705208347567e-06,
    6.889758346916825e-05, 0.0033691164782556943, 0.8044904110141088,
)


#: Cephes i1.c (Moshier): Chebyshev coefficients (highest order first) of exp(-x) I1(x) / x on
#: [0, 8] in x / 4 - 1, and of exp(-x) sqrt(x) I1(x) on (8, inf) in 16 / x - 1.
I1_SMALL = (
    2.77791411276104639959e-18, -2.11142121435816608115e-17, 1.55363195773620046921e-16,
    -1.10559694773538630805e-15, 7.60068429473540693410e-15, -5.04218550472791168711e-14,
    3.22379336594557470981e-13, -1.98397439776494371520e-12, 1.17361862988909016308e-11,
    -6.66348972350202774223e-11, 3.62559028155211703701e-10, -1.88724975172282928790e-09,
    9.38153738649577178388e-09, -4.44505912879632808065e-08, 2.00329475355213526229e-07,
    -8.56872026469545474066e-07, 3.47025130813767847674e-06, -1.32731636560394358279e-05,
    4.78156510755005422638e-05, -1.61760815825896745588e-04, 5.12285956168575772895e-04,
    -1.51357245063125314899e-03, 4.15642294431288815669e-03, -1.05640848946261981558e-02,
    2.47264490306265168283e-02, -5.29459812080949914269e-02, 1.02643658689847095384e-01,
    -1.76416518357834055153e-01, 2.52587186443633654823e-01,
)
I1_LARGE = (
    7.51729631084210481353e-18, 4.41434832307170791151e-18, -4.65030536848935832153e-17,
    -3.20952592199342395980e-17, 2.96262899764595013876e-16, 3.30820231092092828324e-16,
    -1.88035477551078244854e-15, -3.81440307243700780478e-15, 1.04202769841288027642e-14,
    4.27244001671195135429e-14, -2.10154184277266431302e-14, -4.08355111109219731823e-13,
    -7.19855177624590851209e-13, 2.03562854414708950722e-12, 1.41258074366137813316e-11,
    3.25260358301548823856e-11, -1.89749581235054123450e-11, -5.58974346219658380687e-10,
    -3.83538038596423702205e-09, -2.63146884688951950684e-08, -2.51223623787020892529e-07,
    -3.88256480887769039346e-06, -1.10588938762623716291e-04, -9.76109749136146840777e-03,
    7.78576235018280120474e-01,
)


def _chebyshev(c: Converter, coeffs: Sequence[float], t: SSAValue) -> SSAValue:
    """Cephes' chbevl(2t, coeffs) for t in [-1, 1]: the sum of coeffs[k] T_j(t), j = n - 1 - k, the
    constant term's halved, by Clenshaw's recurrence as chbevl runs it (b0 = 2t b1 - b2 + c_k;
    0.5 (b0 - b2)): elementwise multiply-adds that fuse into one kernel. (cos(j acos(t)) summed
    over a new dim ran a cos per term on 8 lanes of a row-reduction schedule: session 44.)
    Against PyTorch's float64 i0 and i0e: 7e-16 and 5e-16 relative over [-30, 30] and
    [-300, 300], the same infinities and NaNs; in float32 the error of PyTorch's float32 ones."""
    tt = t.type
    x = _op(c, T.MulOp, tt, t, 2.0)
    b0: SSAValue | float = coeffs[0]
    b1: SSAValue | float = 0.0
    b2: SSAValue | float = 0.0
    for coeff in coeffs[1:]:
        b2, b1 = b1, b0
        if isinstance(b2, float):  # the first two steps: b2 is a coefficient, folded into this one
            b0 = _op(c, T.AddOp, tt, _op(c, T.MulOp, tt, x, b1), coeff - b2)
        else:
            b0 = _op(c, T.AddOp, tt, _op(c, T.SubOp, tt, _op(c, T.MulOp, tt, x, b1), b2), coeff)
    return _op(c, T.MulOp, tt, _op(c, T.SubOp, tt, b0, b2), 0.5)


@handles("i0", "special_i0", "special_modified_bessel_i0", to="torch.abs, torch.mul, torch.add, torch.sub, torch.exp, torch.div, torch.sqrt, torch.le, torch.where")
def _i0(c: Converter, node, x):
    """The modified Bessel function I0 as Cephes (and PyTorch) computes it, by two Chebyshev series.

    With a = |x|: exp(a) chbevl(a / 2 - 2, I0_SMALL) where a <= 8, else exp(a) chbevl(32 / a - 2,
    I0_LARGE) / sqrt(a), in PyTorch's order, so that it overflows where PyTorch's does (float32
    beyond 88.7) and gives NaN at +-inf (inf / inf) as PyTorch's. Both series are computed, one
    picked."""
    t = c.out_type()
    a = _op(c, T.AbsOp, t, _operand(c, x, t.element_type))
    e = _op(c, T.ExpOp, t, a)
    small, series = _i0_series(c, a)
    large = _op(c, T.DivOp, t, _op(c, T.MulOp, t, e, series), _op(c, T.SqrtOp, t, a))
    return _scalar_where(c, _op(c, T.LeOp, _bool_type(t), a, 8.0), _op(c, T.MulOp, t, e, small), large, t)


def _i0_series(c: Converter, a: SSAValue) -> tuple[SSAValue, SSAValue]:
    """Cephes' two Chebyshev series of I0 at a = |x|: exp(-a) I0(a) for a <= 8, chbevl(a / 2 - 2,
    I0_SMALL), and exp(-a) sqrt(a) I0(a) beyond, chbevl(32 / a - 2, I0_LARGE)."""
    t = a.type
    small = _chebyshev(c, I0_SMALL, _op(c, T.SubOp, t, _op(c, T.MulOp, t, a, 0.25), 1.0))
    large = _chebyshev(c, I0_LARGE, _op(c, T.SubOp, t, _op(c, T.DivOp, t, 16.0, a), 1.0))
    return small, large


@handles("special_i0e", to="torch.abs, torch.mul, torch.add, torch.sub, torch.div, torch.sqrt, torch.le, torch.where")
def _i0e(c: Converter, node, x):
    """exp(-|x|) I0(x): i0's two Chebyshev series without their exp(|x|), 0 at +-inf as PyTorch."""
    t = c.out_type()
    a = _op(c, T.AbsOp, t, _operand(c, x, t.element_type))
    small, series = _i0_series(c, a)
    large = _op(c, T.DivOp, t, series, _op(c, T.SqrtOp, t, a))
    return _scalar_where(c, _op(c, T.LeOp, _bool_type(t), a, 8.0), small, large, t)


def _i1_parts(c: Converter, x) -> tuple[TensorType, SSAValue, SSAValue, SSAValue, SSAValue]:
    """(type, x, |x|, exp(-|x|) I1 on [0, 8]: chbevl(|x| / 2 - 2, I1_SMALL) |x|, exp(-|x|)
    I1 beyond 8 times sqrt(|x|): chbevl(32 / |x| - 2, I1_LARGE))."""
    t = c.out_type()
    v = _operand(c, x, t.element_type)
    a = _op(c, T.AbsOp, t, v)
    small = _op(c, T.MulOp, t, _chebyshev(c, I1_SMALL, _op(c, T.SubOp, t, _op(c, T.MulOp, t, a, 0.25), 1.0)), a)
    large = _chebyshev(c, I1_LARGE, _op(c, T.SubOp, t, _op(c, T.DivOp, t, 16.0, a), 1.0))
    return t, v, a, small, large


def _odd(c: Converter, t: TensorType, v: SSAValue, r: SSAValue) -> SSAValue:
    """r with the sign of x (I1 is odd)."""
    return _scalar_where(c, _op(c, T.LtOp, _bool_type(t), v, 0.0), _op(c, T.NegOp, t, r), r, t)


@handles("special_i1", "special_modified_bessel_i1", to="torch.abs, torch.mul, torch.add, torch.sub, torch.exp, torch.div, torch.sqrt, torch.le, torch.lt, torch.neg, torch.where")
def _i1(c: Converter, node, x):
    """The modified Bessel function I1 as Cephes (and PyTorch) computes it: on a = |x|,
    exp(a) a chbevl(a / 2 - 2, I1_SMALL) where a <= 8, else exp(a) chbevl(32 / a - 2, I1_LARGE) /
    sqrt(a) (overflowing where PyTorch's does, NaN at +-inf), the sign of x restored."""
    t, v, a, small, large = _i1_parts(c, x)
    e = _op(c, T.ExpOp, t, a)
    big = _op(c, T.DivOp, t, _op(c, T.MulOp, t, e, large), _op(c, T.SqrtOp, t, a))
    r = _scalar_where(c, _op(c, T.LeOp, _bool_type(t), a, 8.0), _op(c, T.MulOp, t, small, e), big, t)
    return _odd(c, t, v, r)


@handles("special_i1e", to="torch.abs, torch.mul, torch.add, torch.sub, torch.div, torch.sqrt, torch.le, torch.lt, torch.neg, torch.where")
def _i1e(c: Converter, node, x):
    """exp(-|x|) I1(x): i1's two Chebyshev series without their exp(|x|), 0 at +-inf."""
    t, v, a, small, large = _i1_parts(c, x)
    big = _op(c, T.DivOp, t, large, _op(c, T.SqrtOp, t, a))
    return _odd(c, t, v, _scalar_where(c, _op(c, T.LeOp, _bool_type(t), a, 8.0), small, big, t))


#: 1 / (2k + 1)! for k = 6 .. 0, alternating: sin(x) / x = sum (-x^2)^k / (2k + 1)!.
SINC_SERIES = tuple((-1) ** k / math.factorial(2 * k + 1) for k in range(6, -1, -1))


@handles("special_spherical_bessel_j0", to="torch.abs, torch.mul, torch.add, torch.sin, torch.div, torch.lt, torch.isinf, torch.where")
def _spherical_bessel_j0(c: Converter, node, x):
    """sin(x) / x, as PyTorch computes it: its Taylor series to x^12 where |x| < 0.5 (1 at 0,
    where the quotient is 0 / 0), 0 at +-inf (where sin is NaN)."""
    t = c.out_type()
    v = _operand(c, x, t.element_type)
    series = _horner(c, SINC_SERIES, _op(c, T.MulOp, t, v, v))
    quotient = _op(c, T.DivOp, t, _op(c, T.SinOp, t, v), v)
    near = _op(c, T.LtOp, _bool_type(t), _op(c, T.AbsOp, t, v), 0.5)
    r = _scalar_where(c, near, series, quotient, t)
    inf = c.emit(T.IsinfOp.create_from([v], _bool_type(t)))
    return _scalar_where(c, inf, c.constant(0.0, t.element_type), r, t)


#: Cephes j0.c / j1.c (Moshier), as PyTorch's Math.h: for |x| <= 5, J0 = (x^2 - r1^2)(x^2 - r2^2)
#: RP(x^2) / RQ(x^2) and J1 = x (x^2 - r1^2)(x^2 - r2^2) RP / RQ (r1, r2 their first zeros);
#: beyond, sqrt(2 / (pi x)) (P cos(x - phase) - 5 / x Q sin(x - phase)), P = PP / PQ and Q = QP / QQ
#: in w = 25 / x^2 (Y swaps cos and sin). Y0 and Y1 near 0: YP / YQ plus 2 / pi log(x) J.
J0_PP = (
    0.0007969367292973471, 0.08283523921074408, 1.239533716464143, 5.447250030587687,
    8.74716500199817, 5.303240382353949, 1.0,
)
J0_PQ = (
    0.0009244088105588637, 0.08562884743544745, 1.2535274390105895, 5.470977403304171,
    8.761908832370695, 5.306052882353947, 1.0,
)
J0_QP = (
    -0.011366383889846916, -1.2825271867050931, -19.553954425773597, -93.20601521237683,
    -177.68116798048806, -147.07750515495118, -51.41053267665993, -6.050143506007285,
)
J0_QQ = (
    64.3178256118178, 856.4300259769806, 3882.4018360540163, 7240.467741956525, 5930.727011873169,
    2062.0933166032783, 242.0057402402914,
)
J0_RP = (-4794432209.782018, 1956174919465.5657, -249248344360967.72, 9708622510473064.0)
J0_RQ = (
    499.563147152651, 173785.4016763747, 48440965.83399621, 11185553704.535683, 2112775201154.892,
    310518229857422.56, 3.1812195594320496e+16, 1.7108629408104315e+18,
)
J1_PP = (
    0.0007621256162081731, 0.07313970569409176, 1.1271960812968493, 5.112079511468076,
    8.424045901417724, 5.214515986823615, 1.0,
)
J1_PQ = (
    0.0005713231280725487, 0.06884559087544954, 1.105142326340617, 5.073863861286015,
    8.399855543276042, 5.209828486823619, 1.0,
)
J1_QP = (
    0.05108625947501766, 4.982138729512334, 75.82382841325453, 366.7796093601508, 710.8563049989261,
    597.4896124006136, 211.68875710057213, 25.207020585802372,
)
J1_QQ = (
    74.23732770356752, 1056.4488603826283, 4986.410583376536, 9562.318924047562, 7997.041604473507,
    2826.1927851763908, 336.0936078106983,
)
J1_RP = (-899971225.7055594, 452228297998.19403, -72749424522181.83, 3682957328638529.0)
J1_RQ = (
    620.8364781180543, 256987.25675774884, 83514679.14319493, 22151159547.97925, 4749141220799.914,
    784369607876235.9, 8.952223361846274e+16, 5.322786203326801e+18,
)
Y0_YP = (
    15592.436785523574, -14663929.59039716, 5435264770.518765, -982136065717.9115, 87590639439536.7,
    -3466283033847297.0, 4.4273326857256984e+16, -1.8495080043698668e+16,
)
Y0_YQ = (
    1041.2835366425984, 626107.330137135, 268919633.39381415, 86400248710.3935, 20297961275010.555,
    3171577528429750.5, 2.5059625617265306e+17,
)
Y1_YP = (
    1263204747.9017804, -647355876379.1603, 114509511541823.73, -8127702555013251.0,
    2.024394757135949e+17, -7.788771962659501e+17,
)
Y1_YQ = (
    594.3015923461282, 235564.09294306856, 73481194.44597217, 18760131610.870617,
    3882312774962.3857, 620557727146953.8, 6.871410873553005e+16, 3.9727060811656064e+18,
)
K0_SMALL = (
    1.374465435613523e-16, 4.25981614279661e-14, 1.0349695257633842e-11, 1.904516377220209e-09,
    2.5347910790261494e-07, 2.286212103119452e-05, 0.001264615411446926, 0.0359799365153615,
    0.3442898999246285, -0.5353273932339028,
)
K0_LARGE = (
    5.300433772686263e-18, -1.6475804301524212e-17, 5.2103915050390274e-17, -1.678231096805412e-16,
    5.512055978524319e-16, -1.848593377343779e-15, 6.3400764774050706e-15, -2.2275133269916698e-14,
    8.032890775363575e-14, -2.9800969231727303e-13, 1.140340588208475e-12, -4.514597883373944e-12,
    1.8559491149547177e-11, -7.957489244477107e-11, 3.577397281400301e-10, -1.69753450938906e-09,
    8.574034017414225e-09, -4.660489897687948e-08, 2.766813639445015e-07, -1.8317555227191195e-06,
    1.39498137188765e-05, -0.00012849549581627802, 0.0015698838857300533, -0.0314481013119645,
    2.4403030820659555,
)
K1_SMALL = (
    -7.023863479386288e-18, -2.427449850519366e-15, -6.666901694199329e-13, -1.4114883926335278e-10,
    -2.213387630734726e-08, -2.4334061415659684e-06, -0.0001730288957513052, -0.006975723859639864,
    -0.12261118082265715, -0.3531559607765449, 1.5253002273389478,
)
K1_LARGE = (
    -5.756744483665017e-18, 1.7940508731475592e-17, -5.689462558442859e-17, 1.838093544366639e-16,
    -6.057047248373319e-16, 2.038703165624334e-15, -7.019837090418314e-15, 2.4771544244813043e-14,
    -8.976705182324994e-14, 3.3484196660784293e-13, -1.2891739609510289e-12, 5.13963967348173e-12,
    -2.1299678384275683e-11, 9.218315187605006e-11, -4.1903547593418965e-10, 2.015049755197033e-09,
    -1.0345762465678097e-08, 5.7410841254500495e-08, -3.5019606030878126e-07, 2.406484947837217e-06,
    -1.936197974166083e-05, 0.00019521551847135162, -0.002857816859622779, 0.10392373657681724,
    2.7206261904844427,
)
#: (PP, PQ, QP, QQ, phase, the squares of the first two zeros) of J0 and J1.
BESSEL_J = {
    0: (J0_PP, J0_PQ, J0_QP, J0_QQ, 0.785398163397448309615660845819875721, 5.78318596294678452118, 30.4712623436620863991),
    1: (J1_PP, J1_PQ, J1_QP, J1_QQ, 2.356194490192344928846982537459627163, 14.6819706421238932572, 49.2184563216946036703),
}  # fmt: skip
TWO_OVER_PI = 0.636619772367581343075535053490057448


def _ratio(c: Converter, num: Sequence[float], den: Sequence[float], w: SSAValue) -> SSAValue:
    """num(w) / den(w), both by Horner's rule."""
    return _op(c, T.DivOp, w.type, _horner(c, num, w), _horner(c, den, w))


def _bessel_far(c: Converter, x: SSAValue, order: int, second: bool) -> SSAValue:
    """J (or Y where `second`) of `order` beyond 5, as Cephes: sqrt(2 / pi) (P cos(x - phase) -
    5 / x Q sin(x - phase)) / sqrt(x) (Y: P sin + 5 / x Q cos), in PyTorch's order of operations
    (J0's w is 25 / x^2, J1's 5 / x 5 / x)."""
    t = x.type
    pp, pq, qp, qq, phase = BESSEL_J[order][:5]
    five = _op(c, T.DivOp, t, 5.0, x)
    w = _op(c, T.DivOp, t, 25.0, _op(c, T.MulOp, t, x, x)) if order == 0 else _op(c, T.MulOp, t, five, five)
    p, q = _ratio(c, pp, pq, w), _op(c, T.MulOp, t, five, _ratio(c, qp, qq, w))
    cos, sin = (_op(c, op, t, _op(c, T.SubOp, t, x, phase)) for op in (T.CosOp, T.SinOp))
    if second:
        r = _op(c, T.AddOp, t, _op(c, T.MulOp, t, p, sin), _op(c, T.MulOp, t, q, cos))
    else:
        r = _op(c, T.SubOp, t, _op(c, T.MulOp, t, p, cos), _op(c, T.MulOp, t, q, sin))
    return _op(c, T.DivOp, t, _op(c, T.MulOp, t, r, 0.797884560802865355879892119868763737), _op(c, T.SqrtOp, t, x))


def _bessel_near(c: Converter, x: SSAValue, order: int) -> SSAValue:
    """J0 or J1 for |x| <= 5 by Cephes' rational function (J0: 1 - x^2 / 4 below 1e-5)."""
    t = x.type
    xx = _op(c, T.MulOp, t, x, x)
    rp, rq = (J0_RP, J0_RQ) if order == 0 else (J1_RP, J1_RQ)
    z1, z2 = (_op(c, T.SubOp, t, xx, z) for z in BESSEL_J[order][5:])
    if order == 1:
        return _op(c, T.MulOp, t, _op(c, T.MulOp, t, _op(c, T.MulOp, t, _ratio(c, rp, rq, xx), x), z1), z2)
    r = _op(c, T.DivOp, t, _op(c, T.MulOp, t, _op(c, T.MulOp, t, z1, z2), _horner(c, rp, xx)), _horner(c, rq, xx))
    tiny = _op(c, T.SubOp, t, 1.0, _op(c, T.DivOp, t, xx, 4.0))
    return _scalar_where(c, _op(c, T.LtOp, _bool_type(t), _op(c, T.AbsOp, t, x), 1e-5), tiny, r, t)


@handles("special_bessel_j0", to="torch.abs, torch.mul, torch.add, torch.sub, torch.div, torch.cos, torch.sin, torch.sqrt, torch.lt, torch.le, torch.where")
@handles("special_bessel_j1", to="torch.abs, torch.mul, torch.add, torch.sub, torch.div, torch.cos, torch.sin, torch.sqrt, torch.lt, torch.le, torch.neg, torch.where")
def _bessel_j(c: Converter, node, x):
    """The Bessel functions of the first kind J0 and J1 as Cephes (and PyTorch) computes them.

    A rational function in x^2 for |x| <= 5, the asymptotic form beyond (on |x|, J1's sign
    restored: J1 is odd); NaN at +-inf (cos(inf)), as PyTorch's. Both branches are computed, one
    picked. Against PyTorch in float64 over [-30, 30]: 2e-16 absolute, 3e-15 relative away from
    the zeros."""
    t = c.out_type()
    order = 0 if "j0" in str(node.target) else 1
    v = _operand(c, x, t.element_type)
    a = _op(c, T.AbsOp, t, v)
    far = _bessel_far(c, a, order, False)
    far = far if order == 0 else _odd(c, t, v, far)
    return _scalar_where(c, _op(c, T.LeOp, _bool_type(t), a, 5.0), _bessel_near(c, v, order), far, t)


@handles("special_bessel_y0", to="torch.mul, torch.add, torch.sub, torch.div, torch.log, torch.cos, torch.sin, torch.sqrt, torch.abs, torch.lt, torch.le, torch.where")
@handles("special_bessel_y1", to="torch.mul, torch.add, torch.sub, torch.div, torch.log, torch.cos, torch.sin, torch.sqrt, torch.eq, torch.le, torch.where")
def _bessel_y(c: Converter, node, x):
    """The Bessel functions of the second kind Y0 and Y1 as Cephes (and PyTorch) computes them.

    For 0 < x <= 5, Y0 = YP(x^2) / YQ(x^2) + 2 / pi log(x) J0(x) and Y1 = x YP / YQ + 2 / pi
    (J1(x) log(x) - 1 / x); beyond, J's asymptotic form with cos and sin swapped. -inf at +-0,
    NaN below 0 (log's NaN), as PyTorch."""
    t = c.out_type()
    order = 0 if "y0" in str(node.target) else 1
    v = _operand(c, x, t.element_type)
    xx = _op(c, T.MulOp, t, v, v)
    log, j = _op(c, T.LogOp, t, v), _bessel_near(c, v, order)
    if order == 0:
        near = _op(c, T.AddOp, t, _ratio(c, Y0_YP, Y0_YQ, xx), _op(c, T.MulOp, t, _op(c, T.MulOp, t, log, TWO_OVER_PI), j))
    else:
        log_j = _op(c, T.SubOp, t, _op(c, T.MulOp, t, j, log), _op(c, T.DivOp, t, 1.0, v))
        near = _op(c, T.AddOp, t, _op(c, T.MulOp, t, v, _ratio(c, Y1_YP, Y1_YQ, xx)), _op(c, T.MulOp, t, log_j, TWO_OVER_PI))
        # (at 0, 0 log(0) is NaN)
        near = _scalar_where(c, _op(c, T.EqOp, _bool_type(t), v, 0.0), c.constant(-math.inf, t.element_type), near, t)
    return _scalar_where(c, _op(c, T.LeOp, _bool_type(t), v, 5.0), near, _bessel_far(c, v, order, True), t)


def _k_parts(c: Converter, x, order: int) -> tuple[TensorType, SSAValue, SSAValue, SSAValue]:
    """(type, x, K of `order` for x <= 2, chbevl(8 / x - 2, K_LARGE) for x > 2) as Cephes' k0.c /
    k1.c: K0 = chbevl(x^2 - 2, K0_SMALL) - log(x / 2) I0(x), K1 = log(x / 2) I1(x) +
    chbevl(x^2 - 2, K1_SMALL) / x (I0 and I1 by their series on [0, 8]). Below 0, NaN (log)."""
    t = c.out_type()
    v = _operand(c, x, t.element_type)
    near = _chebyshev(c, K0_SMALL if order == 0 else K1_SMALL, _op(c, T.MulOp, t, _op(c, T.SubOp, t, _op(c, T.MulOp, t, v, v), 2.0), 0.5))
    log = _op(c, T.LogOp, t, _op(c, T.MulOp, t, v, 0.5))
    quarter = _op(c, T.SubOp, t, _op(c, T.MulOp, t, v, 0.25), 1.0)
    e = _op(c, T.ExpOp, t, v)
    if order == 0:
        near = _op(c, T.SubOp, t, near, _op(c, T.MulOp, t, log, _op(c, T.MulOp, t, e, _chebyshev(c, I0_SMALL, quarter))))
    else:
        i1 = _op(c, T.MulOp, t, _op(c, T.MulOp, t, _chebyshev(c, I1_SMALL, quarter), v), e)
        near = _op(c, T.AddOp, t, _op(c, T.MulOp, t, log, i1), _op(c, T.DivOp, t, near, v))
        # (at 0, log(0) I1(0) is NaN)
        near = _scalar_where(c, _op(c, T.EqOp, _bool_type(t), v, 0.0), c.constant(math.inf, t.element_type), near, t)
    far = _chebyshev(c, K0_LARGE if order == 0 else K1_LARGE, _op(c, T.SubOp, t, _op(c, T.DivOp, t, 4.0, v), 1.0))
    return t, v, near, far


@handles("special_modified_bessel_k0", to="torch.mul, torch.add, torch.sub, torch.div, torch.log, torch.exp, torch.neg, torch.sqrt, torch.le, torch.where")
@handles("special_modified_bessel_k1", to="torch.mul, torch.add, torch.sub, torch.div, torch.log, torch.exp, torch.neg, torch.sqrt, torch.eq, torch.le, torch.where")
def _bessel_k(c: Converter, node, x):
    """The modified Bessel functions of the second kind K0 and K1 as Cephes (and PyTorch):
    Chebyshev series in x^2 - 2 for x <= 2, exp(-x) chbevl(8 / x - 2) / sqrt(x) beyond; inf at 0,
    NaN below, 0 at inf."""
    t, v, near, far = _k_parts(c, x, 0 if "k0" in str(node.target) else 1)
    far = _op(c, T.DivOp, t, _op(c, T.MulOp, t, _op(c, T.ExpOp, t, _op(c, T.NegOp, t, v)), far), _op(c, T.SqrtOp, t, v))
    return _scalar_where(c, _op(c, T.LeOp, _bool_type(t), v, 2.0), near, far, t)


@handles("special_scaled_modified_bessel_k0", to="torch.mul, torch.add, torch.sub, torch.div, torch.log, torch.exp, torch.sqrt, torch.le, torch.where")
@handles("special_scaled_modified_bessel_k1", to="torch.mul, torch.add, torch.sub, torch.div, torch.log, torch.exp, torch.sqrt, torch.eq, torch.le, torch.where")
def _scaled_bessel_k(c: Converter, node, x):
    """exp(x) K0(x) and exp(x) K1(x): K's series times exp(x) for x <= 2, chbevl(8 / x - 2) /
    sqrt(x) beyond, as PyTorch."""
    t, v, near, far = _k_parts(c, x, 0 if "k0" in str(node.target) else 1)
    near = _op(c, T.MulOp, t, near, _op(c, T.ExpOp, t, v))
    return _scalar_where(c, _op(c, T.LeOp, _bool_type(t), v, 2.0), near, _op(c, T.DivOp, t, far, _op(c, T.SqrtOp, t, v)), t)


#: The asymptotic series of log z - 1/(2z) - digamma(z) in w = 1 / z^2 (B_2n / 2n, highest first).
DIGAMMA_ASYMPTOTIC = (1 / 12, -691 / 32760, 1 / 132, -1 / 240, 1 / 252, -1 / 120, 1 / 12, 0.0)
#: How far digamma shifts an argument up before its series (the next term beyond z = 8: below
#: 2e-15).
GAMMA_SHIFT = 8


def _shifted(c: Converter, u: SSAValue, n: int) -> tuple[SSAValue, SSAValue, list[SSAValue]]:
    """(z, small, [u, u + 1, .. u + n - 1]): z = u + n where u < n (small), else u."""
    t = u.type
    assert isinstance(t, TensorType)
    small = _op(c, T.LtOp, _bool_type(t), u, float(n))
    z = _scalar_where(c, small, _op(c, T.AddOp, t, u, float(n)), u, t)
    return z, small, [u] + [_op(c, T.AddOp, t, u, float(k)) for k in range(1, n)]


def _reflected(c: Converter, v: SSAValue) -> tuple[SSAValue, SSAValue, SSAValue]:
    """For digamma's reflection formula: (u, pi r, pole): u = v where v > 0, else 1 - v; r = v -
    round(v) in [-1/2, 1/2] (tan of pi r loses nothing for large v); pole where v is 0, a
    negative integer or -inf."""
    t = v.type
    assert isinstance(t, TensorType)
    positive = _op(c, T.GtOp, _bool_type(t), v, 0.0)
    u = _scalar_where(c, positive, v, _op(c, T.SubOp, t, 1.0, v), t)
    rounded = c.emit(T.RoundOp.create_from([v], t, {"decimals": IntAttr(0)}))
    pi_r = _op(c, T.MulOp, t, _op(c, T.SubOp, t, v, rounded), math.pi)
    whole = _op(c, T.EqOp, _bool_type(t), v, _op(c, T.FloorOp, t, v))
    pole = _op(c, T.LogicalAndOp, _bool_type(t), c.emit(T.LogicalNotOp.create_from([positive], _bool_type(t))), whole)
    return u, pi_r, pole


@handles("lgamma", "special_gammaln", to="torch.lgamma")
def _lgamma(c: Converter, node, x):
    """log |Gamma(x)| (CUDA's lgammaf / lgamma, as PyTorch's CUDA kernel); +inf at the poles."""
    t = c.out_type()
    return c.emit(T.LgammaOp.create_from([_operand(c, x, t.element_type)], t))


@handles("mvlgamma", "special_multigammaln", to="torch.lgamma, torch.sub, torch.add")
def _mvlgamma(c: Converter, node, x, p):
    """The multivariate log-gamma: the sum of lgamma(x - i/2), i < p, plus p (p - 1) / 4 log(pi)."""
    t = c.out_type()
    v = _operand(c, x, t.element_type)
    total = c.constant(p * (p - 1) / 4 * math.log(math.pi), t.element_type)
    for i in range(p):
        term = c.emit(T.LgammaOp.create_from([_op(c, T.SubOp, t, v, i / 2)], t))
        total = _op(c, T.AddOp, t, total, term)
    return total


@handles("digamma", "special_digamma", "special_psi",
         to="torch.to_dtype, torch.round, torch.floor, torch.add, torch.mul, torch.div, torch.log, torch.tan, torch.where")
def _digamma(c: Converter, node, x):
    """The derivative of log Gamma by its asymptotic series past a shift, by reflection for x < 0.

    The series log z - 1/(2z) - sum B_2n / (2n z^2n) at x shifted to 8 or more, less the
    shift's 1/x + 1/(x + 1) + ..; digamma(1 - x) - pi / tan(pi r) for x < 0, r = x - round(x).
    As PyTorch: -inf at 0, inf at -0, NaN at the negative integers and -inf. In float64 whatever
    the input's type: against PyTorch in float64, 1e-13 relative (5e-13 beside the poles, where
    PyTorch's tan(pi (x - trunc(x))) is the less exact), 2e-15 absolute near the roots."""
    out_t = c.out_type()
    v = c.cast(_operand(c, x, out_t.element_type), f64)
    t = v.type
    assert isinstance(t, TensorType)
    elem = f64
    u, pi_r, pole = _reflected(c, v)
    z, small, steps = _shifted(c, u, GAMMA_SHIFT)
    inverse = _op(c, T.DivOp, t, 1.0, z)
    series = _op(c, T.SubOp, t, _op(c, T.SubOp, t, _op(c, T.LogOp, t, z), _op(c, T.MulOp, t, inverse, 0.5)),
                 _horner(c, DIGAMMA_ASYMPTOTIC, _op(c, T.MulOp, t, inverse, inverse)))  # fmt: skip
    harmonic = _op(c, T.DivOp, t, 1.0, steps[0])
    for step in steps[1:]:
        harmonic = _op(c, T.AddOp, t, harmonic, _op(c, T.DivOp, t, 1.0, step))
    positive = _op(c, T.SubOp, t, series, _scalar_where(c, small, harmonic, c.constant(0.0, elem), t))
    reflected = _op(c, T.SubOp, t, positive, _op(c, T.DivOp, t, math.pi, _op(c, T.TanOp, t, pi_r)))
    out = _scalar_where(c, _op(c, T.GtOp, _bool_type(t), v, 0.0), positive, reflected, t)
    out = _scalar_where(c, pole, c.constant(math.nan, elem), out, t)
    # +-0: -1/x (-inf at 0, inf at -0)
    zero = _op(c, T.EqOp, _bool_type(t), v, 0.0)
    return c.cast(_scalar_where(c, zero, _op(c, T.NegOp, t, _op(c, T.DivOp, t, 1.0, v)), out, t), out_t.element_type)


#: Cephes zeta.c's Euler-Maclaurin divisors: (2k)! / B_2k, k = 1 .. 12.
ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
          -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
          1.8152105401943546773e17, -7.1661652561756670113e18)  # fmt: skip
ZETA_MACHEP = 1.11022302462515654042e-16


def _zeta_positive(c: Converter, x: SSAValue, q: SSAValue) -> SSAValue:
    """Cephes' Hurwitz zeta for q > 0 as PyTorch runs it: q^-x plus 9 more terms (a = q + 1, ..
    q + 9), then the Euler-Maclaurin tail at w = q + 9 in 12 terms. Cephes returns as soon as a
    term falls below MACHEP of the sum; a `done` mask freezes the sum there instead (so that,
    as in PyTorch, no later inf * 0 turns it NaN: zeta(inf, 1) = 1)."""
    t = x.type
    b1 = _bool_type(t)
    s, a, b, done = _op(c, T.PowOp, t, q, _op(c, T.NegOp, t, x)), q, None, None

    def step(s: SSAValue, term: SSAValue, done: SSAValue | None, exit_if) -> tuple[SSAValue, SSAValue]:
        new = _op(c, T.AddOp, t, s, term)
        stop = exit_if(new)
        if done is None:
            return new, stop
        return _scalar_where(c, done, s, new, t), _op(c, T.LogicalOrOp, b1, done, stop)

    def tiny(term: SSAValue):  # -MACHEP s < b < MACHEP s
        return lambda s: _op(c, T.LogicalAndOp, b1, _op(c, T.LtOp, b1, _op(c, T.MulOp, t, s, -ZETA_MACHEP), term),
                             _op(c, T.LtOp, b1, term, _op(c, T.MulOp, t, s, ZETA_MACHEP)))  # fmt: skip

    for _ in range(9):
        a = _op(c, T.AddOp, t, a, 1.0)
        b = _op(c, T.PowOp, t, a, _op(c, T.NegOp, t, x))
        s, done = step(s, b, done, tiny(b))
    assert b is not None and done is not None
    w = a
    tail = _op(c, T.SubOp, t, _op(c, T.AddOp, t, s, _op(c, T.DivOp, t, _op(c, T.MulOp, t, b, w), _op(c, T.SubOp, t, x, 1.0))),
               _op(c, T.MulOp, t, b, 0.5))  # fmt: skip
    s = _scalar_where(c, done, s, tail, t)
    a = x
    for i, divisor in enumerate(ZETA_A):
        if i:
            a = _op(c, T.MulOp, t, a, _op(c, T.AddOp, t, x, float(2 * i)))
        b = _op(c, T.DivOp, t, b, w)
        term = _op(c, T.DivOp, t, _op(c, T.MulOp, t, a, b), divisor)
        s, done = step(s, term, done, lambda s: _op(c, T.LtOp, b1, _op(c, T.AbsOp, t, _op(c, T.DivOp, t, term, s)), ZETA_MACHEP))
        a = _op(c, T.MulOp, t, a, _op(c, T.AddOp, t, x, float(2 * i + 1)))
        b = _op(c, T.DivOp, t, b, w)
    return s


def _zeta(c: Converter, x: SSAValue, q: SSAValue) -> SSAValue:
    """The Hurwitz zeta function sum (q + k)^-x, k >= 0, as PyTorch: inf at x = 1, NaN below; inf
    where q is 0 or a negative integer, NaN where q < 0 and x is not an integer. Where both are
    (integer x, q < 0 not an integer), PyTorch sums terms until q + k > 9, a count that depends
    on q; here the same value from positive arguments only, f = q - floor(q) in (0, 1):
    zeta(x, q) = zeta(x, f) + (-1)^x (zeta(x, 1 - f) - zeta(x, 1 - q)), the sum of
    (q + k)^-x over k < -floor(q) being (-1)^x (zeta(x, 1 - f) - zeta(x, 1 - q)). (For odd x the
    terms cancel in pairs, in PyTorch's sum as in this one: both lose digits there.)"""
    t = x.type
    b1 = _bool_type(t)
    floor_q = _op(c, T.FloorOp, t, q)
    f = _op(c, T.SubOp, t, q, floor_q)
    negative = _op(c, T.LeOp, b1, q, 0.0)
    z = _zeta_positive(c, x, _scalar_where(c, negative, f, q, t))
    odd = _op(c, T.SubOp, t, x, _op(c, T.MulOp, t, _op(c, T.FloorOp, t, _op(c, T.MulOp, t, x, 0.5)), 2.0))
    sign = _scalar_where(c, _op(c, T.EqOp, b1, odd, 1.0), c.constant(-1.0, t.element_type), c.constant(1.0, t.element_type), t)  # (+1 at inf)
    # 1 - f as ceil(q) - q, exact (1 - f would lose q's digits where q is close to 0)
    g = _op(c, T.SubOp, t, _op(c, T.CeilOp, t, q), q)
    shift = _op(c, T.SubOp, t, _zeta_positive(c, x, g), _zeta_positive(c, x, _op(c, T.SubOp, t, 1.0, q)))
    reflected = _op(c, T.AddOp, t, z, _op(c, T.MulOp, t, sign, shift))
    # f^-x overflowing (x huge or inf): PyTorch's sum holds that inf term too
    reflected = _scalar_where(c, c.emit(T.IsinfOp.create_from([z], b1)), z, reflected, t)
    out = _scalar_where(c, negative, reflected, z, t)
    nan, inf = c.constant(math.nan, t.element_type), c.constant(math.inf, t.element_type)
    fraction = _op(c, T.NeOp, b1, x, _op(c, T.FloorOp, t, x))
    out = _scalar_where(c, _op(c, T.LogicalAndOp, b1, negative, fraction), nan, out, t)
    out = _scalar_where(c, _op(c, T.LogicalAndOp, b1, negative, _op(c, T.EqOp, b1, q, floor_q)), inf, out, t)
    out = _scalar_where(c, _op(c, T.LtOp, b1, x, 1.0), nan, out, t)
    return _scalar_where(c, _op(c, T.EqOp, b1, x, 1.0), inf, out, t)


@handles("special_zeta", to="torch.pow, torch.neg, torch.add, torch.sub, torch.mul, torch.div, torch.abs, torch.floor, torch.ceil, torch.isinf, torch.lt, torch.le, torch.eq, torch.ne, torch.logical_and, torch.logical_or, torch.expand, torch.where")
def _special_zeta(c: Converter, node, x, q):
    """The Hurwitz zeta function zeta(x, q) by Cephes' sum and Euler-Maclaurin tail (`_zeta`)."""
    t = c.out_type()
    x, q = (_operand(c, v, t.element_type) for v in (x, q))
    x, q = (v if v.type == t else c.emit(T.ExpandOp.create_from([v], t)) for v in (x, q))
    return _zeta(c, x, q)


@handles("polygamma", to="torch.pow, torch.neg, torch.add, torch.sub, torch.mul, torch.div, torch.abs, torch.floor, torch.ceil, torch.isinf, torch.sin, torch.lt, torch.le, torch.eq, torch.ne, torch.logical_and, torch.logical_or, torch.where, torch.to_dtype, torch.round, torch.log, torch.tan")
def _polygamma(c: Converter, node, n, x):
    """The n-th derivative of digamma for a constant n, as PyTorch: digamma for n = 0; for n = 1
    its trigamma (pi^2 / sin^2(pi x) - trigamma(1 - x) below 1/2, six shifts, an asymptotic
    series); beyond, (-1)^(n + 1) n! zeta(n + 1, x) (`_zeta`)."""
    if not isinstance(n, int) or n < 0:
        raise c.fail(f"unsupported polygamma of order {n!r} (a constant integer n >= 0 is done)")
    if n == 0:
        return _digamma(c, node, x)
    t = c.out_type()
    v = _operand(c, x, t.element_type)
    if n > 1:
        return _op(c, T.MulOp, t, _zeta(c, c.constant(float(n + 1), t.element_type, t.get_shape()), v),
                   (1.0 if n % 2 else -1.0) * math.exp(math.lgamma(n + 1)))  # fmt: skip
    b1 = _bool_type(t)
    low = _op(c, T.LtOp, b1, v, 0.5)
    sin = _op(c, T.SinOp, t, _op(c, T.MulOp, t, v, math.pi))
    r = _scalar_where(c, low, _op(c, T.NegOp, t, _op(c, T.DivOp, t, math.pi * math.pi, _op(c, T.MulOp, t, sin, sin))),
                      c.constant(0.0, t.element_type), t)  # fmt: skip
    u = _scalar_where(c, low, _op(c, T.SubOp, t, 1.0, v), v, t)
    for _ in range(6):
        r = _op(c, T.AddOp, t, r, _op(c, T.DivOp, t, 1.0, _op(c, T.MulOp, t, u, u)))
        u = _op(c, T.AddOp, t, u, 1.0)
    ixx = _op(c, T.DivOp, t, 1.0, _op(c, T.MulOp, t, u, u))
    series = _op(c, T.MulOp, t, ixx, _op(c, T.SubOp, t, 1 / 6, _op(c, T.MulOp, t, ixx, _op(c, T.SubOp, t, 1 / 30, _op(c, T.MulOp, t, ixx, 1 / 42)))))
    head = _op(c, T.AddOp, t, _op(c, T.AddOp, t, 1.0, _op(c, T.DivOp, t, 1.0, _op(c, T.MulOp, t, u, 2.0))), series)
    r = _op(c, T.AddOp, t, r, _op(c, T.DivOp, t, head, u))
    return _scalar_where(c, low, _op(c, T.NegOp, t, r), r, t)


@handles("index", to="torch.lt, torch.add, torch.mul, torch.where, torch.reshape, torch.index_select")
def _index(c: Converter, node, x, indices):
    """Integer index tensors (negative indices wrap) on adjacent dims, as index_select.

    Several index tensors (x[i, j]) pick from those dims flattened into one, at i * n_j + j; index
    tensors of several dims (broadcast together, as PyTorch does: F.unfold's window positions)
    pick at their flattened positions, and the result is reshaped to theirs. Boolean masks
    (data-dependent shapes) and index tensors on dims apart are not done."""
    dims, pos = _index_positions(c, x, indices, "indexing")
    t = c.out_type()  # (after: a boolean mask's result has no static shape to ask for)
    v = _flatten_dims(c, c.value(x), dims)
    flat = list(v.type.get_shape())  # type: ignore[attr-defined]
    flat[dims[0]] = pos.type.get_shape()[0]  # type: ignore[attr-defined]
    picked = c.emit(T.IndexSelectOp.create_from([v, pos], TensorType(t.element_type, flat), {"dim": IntAttr(dims[0])}))
    return picked if picked.type == t else c.emit(T.ReshapeOp.create_from([picked], t))


def _index_shape(c: Converter, indices) -> list[int]:
    """The shape the index tensors of x[indices] broadcast to."""
    return list(torch.broadcast_shapes(*(tuple(c.shape(ix)) for ix in indices if ix is not None)))


def _index_positions(c: Converter, x, indices, what: str) -> tuple[list[int], SSAValue]:
    """The dims that `indices` (x[indices]'s list: None or an integer tensor per dim) index, and
    the 1-d i64 positions they pick from those dims flattened into one (i * n_j + j), negative
    indices wrapped; index tensors of several dims are broadcast together and flattened
    (`_index_shape` is their shape)."""
    tensors = [(i, ix) for i, ix in enumerate(indices) if ix is not None]
    dims = [i for i, _ in tensors]
    if not dims or dims != list(range(dims[0], dims[0] + len(dims))):
        raise c.fail(f"unsupported {what} with index tensors on dims apart (a slice between them)")
    if any(ix.meta["val"].dtype == torch.bool for _, ix in tensors):
        raise c.fail(f"unsupported boolean mask {what} (the result's shape depends on the data)")
    shape = c.shape(x)
    bshape = _index_shape(c, indices)
    length = math.prod(bshape)
    it = TensorType(IntegerType(64), [length])
    pos = None
    for d, ix in tensors:
        idx = c.cast(c.value(ix), IntegerType(64))
        if list(c.shape(ix)) != bshape:
            idx = c.emit(T.ExpandOp.create_from([idx], TensorType(IntegerType(64), bshape)))
        if len(bshape) != 1:
            idx = c.emit(T.ReshapeOp.create_from([idx], it))
        neg = c.emit(T.LtOp.create_from([idx, c.constant(0, it.element_type)], _bool_type(it)))
        wrapped = c.emit(T.AddOp.create_from([idx, c.constant(shape[d], it.element_type)], it))
        idx = _scalar_where(c, neg, wrapped, idx, it)
        stride = math.prod(shape[d + 1 : dims[-1] + 1])
        if stride != 1:
            idx = c.emit(T.MulOp.create_from([idx, c.constant(stride, it.element_type)], it))
        pos = idx if pos is None else c.emit(T.AddOp.create_from([pos, idx], it))
    assert pos is not None
    return dims, pos


def _flatten_dims(c: Converter, v: SSAValue, dims: Sequence[int]) -> SSAValue:
    """`v` with the adjacent `dims` viewed as one."""
    t = v.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    if len(dims) == 1:
        return v
    flat = [*shape[: dims[0]], math.prod(shape[dims[0] : dims[-1] + 1]), *shape[dims[-1] + 1 :]]
    return c.emit(T.ReshapeOp.create_from([v], TensorType(t.element_type, flat)))


#: torch.cumsum costs n^2 along its dim (decompose-reductions sums a masked row per element);
#: a longer dim is cut into blocks of CUMSUM_BLOCK, each summed so, then the blocks' totals.
CUMSUM_BLOCK = 64


@handles("cumsum", to="torch.cumsum, torch.sum, torch.add, torch.sub, torch.reshape, torch.cat")
def _cumsum(c: Converter, node, x, dim, *, dtype=None):
    """Running sums along `dim`, in blocks where it is long (`_blocked_cumsum`)."""
    t = c.out_type()
    return _blocked_cumsum(c, c.cast(c.value(x), t.element_type), norm_dim(dim, c.rank(x)))


def _blocked_cumsum(c: Converter, v: SSAValue, d: int) -> SSAValue:
    """Running sums of `v` along `d`. A dim over 2 x CUMSUM_BLOCK is padded with zeros to whole
    blocks and viewed as [.., blocks, CUMSUM_BLOCK, ..]: running sums within each block, plus
    the running sum of the blocks before it (the blocks' totals' running sums, recursively,
    less its own total). About CUMSUM_BLOCK x n additions instead of n^2."""
    t = v.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    n, b = shape[d], CUMSUM_BLOCK
    if n <= 2 * b:
        return c.emit(T.CumsumOp.create_from([v], t, {"dim": IntAttr(d)}))
    nb = -(-n // b)
    elem = t.element_type
    v = _pad_dim(c, v, d, 0, nb * b - n)
    blocks = TensorType(elem, [*shape[:d], nb, b, *shape[d + 1 :]])
    v = c.emit(T.ReshapeOp.create_from([v], blocks))
    inner = c.emit(T.CumsumOp.create_from([v], blocks, {"dim": IntAttr(d + 1)}))
    totals = c.emit(T.SumOp(v, [d + 1], True, TensorType(elem, [*shape[:d], nb, 1, *shape[d + 1 :]])))
    before = c.emit(T.SubOp.create_from([_blocked_cumsum(c, totals, d), totals], totals.type))
    out = c.emit(T.AddOp.create_from([inner, before], blocks))
    out = c.emit(T.ReshapeOp.create_from([out], TensorType(elem, [*shape[:d], nb * b, *shape[d + 1 :]])))
    return _slice_value(c, out, d, 0, n)


def _identity_of(elem: Attribute, kind: str):
    """The identity of a product ("prod"), maximum ("max"), minimum ("min") or logsumexp
    ("logsumexp": -inf) in `elem`."""
    if kind == "prod":
        return 1
    if kind == "logsumexp":
        return -math.inf
    if isinstance(elem, IntegerType):
        lo, hi = _int_min(elem), -_int_min(elem) - 1
        if elem.width.data == 1:
            lo, hi = 0, 1
        return lo if kind == "max" else hi
    return -math.inf if kind == "max" else math.inf


#: The reduction and the elementwise combination of each scan kind (logsumexp's: `_combine`).
_SCANS = {"prod": (T.ProdOp, T.MulOp), "max": (T.AmaxOp, T.MaximumOp), "min": (T.AminOp, T.MinimumOp),
          "logsumexp": (T.LogsumexpOp, None)}  # fmt: skip


def _laid(c: Converter, rank: int, d: int, values: Sequence, elem: Attribute = IntegerType(64),
         name: str = "iota") -> SSAValue:
    """A constant of `values` laid along dim `d` of rank `rank` (size 1 elsewhere)."""
    shape = [1] * rank
    shape[d] = len(values)
    return c.constant(list(values), elem, shape, name)


def _iota(c: Converter, rank: int, d: int, n: int) -> SSAValue:
    """0 .. n-1 (i64) laid along dim `d` of rank `rank` (`constant` makes it a `torch.iota`: the
    loop index, no table)."""
    return _laid(c, rank, d, range(n))


def _index_compare(c: Converter, op_cls, rank: int, a: int, b: int, n: int) -> SSAValue:
    """The bool [.., n, .., n, ..] of `op_cls`(position along dim a, position along dim b): two
    iotas compared (no n x n table)."""
    shape = [1] * rank
    shape[a] = shape[b] = n
    ia, ib = _iota(c, rank, a, n), _iota(c, rank, b, n)
    return c.emit(op_cls.create_from([ia, ib], TensorType(IntegerType(1), shape)))


def _masked_scan(c: Converter, v: SSAValue, d: int, kind: str) -> SSAValue:
    """Running products / maxima / minima of `v` along `d`, as torch.cumsum decomposes: on the
    box [.., i, j, ..] (j inserted after d) x[.., j, ..] where j <= i, else the identity,
    reduced over j. n^2 elements along the dim."""
    t = v.type
    assert isinstance(t, TensorType)
    shape, elem = list(t.get_shape()), t.element_type
    n = shape[d]
    box = [*shape[: d + 1], n, *shape[d + 1 :]]
    xj = _unsqueezed(c, v, d)
    mask = _index_compare(c, T.LeOp, len(box), d + 1, d, n)  # j <= i
    terms = _scalar_where(c, mask, xj, c.constant(_identity_of(elem, kind), elem), TensorType(elem, box))
    return c.emit(_SCANS[kind][0](terms, [d + 1], False, t))


def _scan(c: Converter, v: SSAValue, d: int, kind: str) -> SSAValue:
    """Running products / maxima / minima of `v` along `d`, blocked as `_blocked_cumsum`: a dim
    over 2 x CUMSUM_BLOCK is padded with the identity to whole blocks, each block scanned
    (`_masked_scan`) and combined with the scan of the blocks before it (the blocks' totals
    shifted by one block, scanned recursively). About CUMSUM_BLOCK x n elements, not n^2."""
    t = v.type
    assert isinstance(t, TensorType)
    shape, elem = list(t.get_shape()), t.element_type
    n, b = shape[d], CUMSUM_BLOCK
    if n <= 2 * b:
        return _masked_scan(c, v, d, kind)
    nb = -(-n // b)
    identity = _identity_of(elem, kind)
    v = _pad_dim(c, v, d, 0, nb * b - n, identity)
    blocks = TensorType(elem, [*shape[:d], nb, b, *shape[d + 1 :]])
    v = c.emit(T.ReshapeOp.create_from([v], blocks))
    inner = _masked_scan(c, v, d + 1, kind)
    totals = c.emit(_SCANS[kind][0](v, [d + 1], True, TensorType(elem, [*shape[:d], nb, 1, *shape[d + 1 :]])))
    before = _scan(c, _pad_dim(c, totals, d, 1, -1, identity), d, kind)
    out = _combine(c, kind, inner, before, blocks)
    out = c.emit(T.ReshapeOp.create_from([out], TensorType(elem, [*shape[:d], nb * b, *shape[d + 1 :]])))
    return _slice_value(c, out, d, 0, n)


def _combine(c: Converter, kind: str, a: SSAValue, b: SSAValue, t: TensorType) -> SSAValue:
    """Two partial scans combined elementwise as `t` (b broadcast): their product, maximum or
    minimum, or log(exp(a) + exp(b)) as the logsumexp of the pair (stacked on a new last dim),
    which shifts by their maximum (so it neither overflows nor makes -inf - -inf)."""
    if kind != "logsumexp":
        return c.emit(_SCANS[kind][1].create_from([a, b], t))
    if b.type != t:
        b = c.emit(T.ExpandOp.create_from([b], t))
    rank = len(t.get_shape())
    pair = TensorType(t.element_type, [*t.get_shape(), 2])
    both = c.emit(T.CatOp.create_from([_unsqueezed(c, a, rank), _unsqueezed(c, b, rank)], pair, {"dim": IntAttr(rank)}))
    return c.emit(T.LogsumexpOp(both, [rank], False, t))


@handles("cumprod", to="torch.unsqueeze, torch.where, torch.prod, torch.mul, torch.reshape, torch.cat")
def _cumprod(c: Converter, node, x, dim, *, dtype=None):
    """Running products along `dim`: a masked product per element, in blocks where long (`_scan`)."""
    t = c.out_type()
    return _scan(c, c.cast(c.value(x), t.element_type), norm_dim(dim, c.rank(x)), "prod")


@handles("logcumsumexp", to="torch.unsqueeze, torch.where, torch.logsumexp, torch.expand, torch.cat, torch.reshape")
def _logcumsumexp(c: Converter, node, x, dim):
    """log(cumsum(exp(x))) along `dim` without overflow: `_scan`'s masked logsumexp per element.

    Element i is the logsumexp of x_j where j <= i (-inf elsewhere, on the box `_masked_scan`
    makes), which shifts by that row's maximum, the running maximum: [-1000, 0, 1000] gives
    [-1000, 0, 1000], not inf or -inf. A dim over 2 x CUMSUM_BLOCK is cut into blocks as the other
    scans: each block's own running logsumexp, combined with the blocks' totals' running
    logsumexp in log space (`_combine`), so CUMSUM_BLOCK x n elements, not n^2. The infinities
    and NaN come out as PyTorch's: a +inf stays, all -inf so far gives -inf, NaN propagates."""
    t = c.out_type()
    if c.rank(x) == 0:
        return c.cast(c.value(x), t.element_type)
    return _scan(c, c.cast(c.value(x), t.element_type), norm_dim(dim, c.rank(x)), "logsumexp")


def _cum_extreme(kind: str):
    def handler(c: Converter, node, x, dim):
        t = c.out_type(0)
        d = norm_dim(dim, c.rank(x))
        v = c.cast(c.value(x), t.element_type)
        values = _scan(c, v, d, kind)
        # the latest position holding the running extreme is the latest "record" (an element
        # equal to the running extreme there, or a NaN, which stays the extreme) so far
        record = c.emit(T.EqOp.create_from([v, values], _bool_type(t)))
        if not _is_int(t.element_type):
            nan = c.emit(T.IsnanOp.create_from([v], _bool_type(t)))
            record = c.emit(T.LogicalOrOp.create_from([record, nan], _bool_type(t)))
        it = c.out_type(1)
        at = _iota(c, c.rank(x), d, c.shape(x)[d])
        marks = _scalar_where(c, record, at, c.constant(-1, it.element_type), it)
        return [values, _scan(c, marks, d, "max")]

    handler.__doc__ = ("(values, indices) of the running extreme along `dim`: `_scan` of x, and of "
                       "the positions where x equals it (ties and NaNs: the latest, as PyTorch).")
    return handler


handles("cummax", to="torch.unsqueeze, torch.where, torch.amax, torch.eq, torch.isnan")(_cum_extreme("max"))
handles("cummin", to="torch.unsqueeze, torch.where, torch.amin, torch.amax, torch.eq, torch.isnan")(_cum_extreme("min"))


def _unsqueezed(c: Converter, v: SSAValue, d: int) -> SSAValue:
    """`v` with a unit dim inserted at `d`."""
    t = v.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    shape.insert(d, 1)
    return c.emit(T.UnsqueezeOp.create_from([v], TensorType(t.element_type, shape), {"dim": IntAttr(d)}))


def _sort_ranks(c: Converter, v: SSAValue, d: int, descending: bool) -> SSAValue:
    """Each element's position (i64) in `v` sorted along `d` (`_box_ranks`' order): on the box,
    or where `_sort_plan` finds it cheaper each sorted position scattered to the element there
    (`_merge_sort`)."""
    shape = v.type.get_shape()  # type: ignore[attr-defined]
    n = shape[d]
    if not _sort_plan(math.prod(shape) // n, n):
        return _box_ranks(c, v, d, descending)
    order = _merge_sort(c, v, d, descending)
    base = c.constant(0, IntegerType(64), order.type.get_shape())  # type: ignore[attr-defined]
    rank = _scatter_into(c, base, d, order, _iota(c, len(shape), d, base.type.get_shape()[d]), True)  # type: ignore[attr-defined]
    return _slice_value(c, rank, d, 0, n)


def _box_ranks(c: Converter, v: SSAValue, d: int, descending: bool) -> SSAValue:
    """Each element's position (i64) in `v` sorted along `d`: the count of elements j that sort
    before it, on the box [.., i, j, ..] (j inserted after d): x_j < x_i (> descending) or
    x_j == x_i and j < i, so ties keep their order (a stable sort). NaN sorts above everything,
    as in PyTorch: a < b also where b is NaN and a is not, and NaNs equal each other. n^2
    elements along the dim."""
    t = v.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    n = shape[d]
    box = TensorType(IntegerType(1), [*shape[: d + 1], n, *shape[d + 1 :]])
    xi, xj = _unsqueezed(c, v, d + 1), _unsqueezed(c, v, d)
    first, second = (xi, xj) if descending else (xj, xi)  # j before i when first < second
    less = c.emit(T.LtOp.create_from([first, second], box))
    same = c.emit(T.EqOp.create_from([xj, xi], box))
    if not _is_int(t.element_type):
        nan = c.emit(T.IsnanOp.create_from([v], _bool_type(t)))
        nan_i, nan_j = _unsqueezed(c, nan, d + 1), _unsqueezed(c, nan, d)
        nan_first, nan_second = (nan_i, nan_j) if descending else (nan_j, nan_i)
        not_first = c.emit(T.LogicalNotOp.create_from([nan_first], nan_first.type))
        above = c.emit(T.LogicalAndOp.create_from([nan_second, not_first], box))
        less = c.emit(T.LogicalOrOp.create_from([less, above], box))
        both = c.emit(T.LogicalAndOp.create_from([nan_i, nan_j], box))
        same = c.emit(T.LogicalOrOp.create_from([same, both], box))
    earlier = _index_compare(c, T.LtOp, len(shape) + 1, d + 1, d, n)  # j < i
    tie = c.emit(T.LogicalAndOp.create_from([same, earlier], box))
    before = c.emit(T.LogicalOrOp.create_from([less, tie], box))
    before = c.cast(before, IntegerType(64))
    return c.emit(T.SumOp(before, [d + 1], False, TensorType(IntegerType(64), shape)))


#: Long rows sort by merging (`_merge_sort`): leaves of MERGE_LEAF elements ranked on their
#: own box, then one level a doubling, each element's rank in its merged block found by a binary
#: search of the other half. `_sort_plan` picks it over the n x n box where its estimate is
#: lower: a level costs a launch, MERGE_LEVEL_S, and each binary-search probe about
#: MERGE_PROBE_COMPARES box compares (BOX_COMPARES_PER_S). H200 (2026-12-03, session 42,
#: bench/results/session42/tools/ab42.py --cal, a sort's values and indices, box / merge, ms;
#: eager 0.024-0.085): 4096 x 128 0.116 / 0.086, 1024 x 256 0.087 / 0.050, 512 x 512
#: 0.146 / 0.055, 256 x 1024 0.346 / 0.063, 128 x 2048 0.651 / 0.069, 64 x 4096 1.20 / 0.074,
#: 16 x 16384 4.45 / 0.086: about 6 us a level (2 to 8 levels of 512 Ki elements).
#: `_sort_plan` and `_topk_plan` cache their answers: clear both after changing these.
MERGE_LEAF = 64
MERGE_LEVEL_S = 6e-6
MERGE_PROBE_COMPARES = 2


def _merge_seconds(rows: int, n: int) -> float:
    """`_merge_sort`'s estimated time for `rows` rows of n: the leaves' boxes and every level's
    probes at BOX_COMPARES_PER_S, MERGE_PROBE_COMPARES compares a probe, MERGE_LEVEL_S a level."""
    size = 1 << max(0, (n - 1).bit_length())
    leaf = min(size, MERGE_LEAF)
    levels = (size // leaf).bit_length() - 1
    probes = sum((leaf << i).bit_length() for i in range(levels))
    return rows * size * (leaf + probes * MERGE_PROBE_COMPARES) / BOX_COMPARES_PER_S + MERGE_LEVEL_S * levels


@functools.lru_cache(maxsize=None)
def _sort_plan(rows: int, n: int, k: int = 0) -> bool:
    """Whether `rows` rows of n sort faster by merging (`_merge_sort`) than on the n x n box
    (n (n + k) compares a row: the ranks, then k sorted positions looked up)."""
    return n > MERGE_LEAF and _merge_seconds(rows, n) < rows * n * (n + k) / BOX_COMPARES_PER_S


def _order_keys(c: Converter, v: SSAValue, descending: bool) -> SSAValue:
    """Signed integer keys (i32 for elements of 32 bits or fewer, else i64; v's shape) whose
    order is the sort's (`_box_ranks`): a float's bits with the magnitude flipped where the sign
    is set, -0.0 first made 0.0 and NaN the largest key; bitwise not for descending."""
    t = v.type
    assert isinstance(t, TensorType)
    elem = t.element_type
    wide = T.bit_width(elem) == 64
    kt = TensorType(IntegerType(64 if wide else 32), t.get_shape())
    if _is_int(elem):
        key = c.cast(v, kt.element_type)
    else:
        if not wide:
            v = c.cast(v, Float32Type())
        ft = v.type
        zero = _op(c, T.EqOp, _bool_type(ft), v, 0.0)  # type: ignore[arg-type]
        bits = c.emit(T.BitcastOp.create_from([_scalar_where(c, zero, c.constant(0.0, ft.element_type), v, ft)], kt))  # type: ignore[attr-defined]
        top = -_int_min(kt.element_type) - 1  # the largest key
        sign = _op(c, T.BitwiseRightShiftOp, kt, bits, T.bit_width(kt.element_type) - 1)
        key = c.emit(T.BitwiseXorOp.create_from([bits, _op(c, T.BitwiseAndOp, kt, sign, top)], kt))
        nan = c.emit(T.IsnanOp.create_from([v], _bool_type(ft)))  # type: ignore[arg-type]
        key = _scalar_where(c, nan, c.constant(top, kt.element_type), key, kt)
    if descending:
        key = c.emit(T.BitwiseNotOp.create_from([key], kt))
    return key


def _spread(c: Converter, arg, t: TensorType) -> SSAValue:
    """An operand in `t`'s element type, broadcast to its shape."""
    v = _operand(c, arg, t.element_type)
    return v if v.type == t else c.emit(T.ExpandOp.create_from([v], t))


@handles("nextafter", to="torch.expand, torch.bitcast, torch.add, torch.sub, torch.lt, torch.gt, torch.eq, torch.ne, torch.logical_or, torch.where")
def _nextafter(c: Converter, node, x, other):
    """The next float after x toward `other` (C's nextafter): x's bits plus one where x moves
    away from zero (x < other for x >= 0's positive side, x > other for negative x), minus one
    toward it; `other` where the two are equal (-0.0 and 0.0 too); the smallest subnormal with
    other's sign from a zero x; NaN where either is."""
    t = c.out_type()
    elem = t.element_type
    kt = TensorType(IntegerType(T.bit_width(elem)), t.get_shape())
    bt = _bool_type(t)
    v, w = _spread(c, x, t), _spread(c, other, t)
    bits = c.emit(T.BitcastOp.create_from([v], kt))
    away = c.emit(T.EqOp.create_from([_op(c, T.LtOp, bt, v, w), _op(c, T.GtOp, bt, v, 0.0)], bt))
    stepped = _scalar_where(c, away, _op(c, T.AddOp, kt, bits, 1), _op(c, T.SubOp, kt, bits, 1), kt)
    r = c.emit(T.BitcastOp.create_from([stepped], t))
    tiny = 2.0 ** (-1074 if T.bit_width(elem) == 64 else -149)  # the smallest subnormal
    from_zero = _scalar_where(c, _op(c, T.GtOp, bt, w, 0.0), c.constant(tiny, elem), c.constant(-tiny, elem), t)
    r = _scalar_where(c, _op(c, T.EqOp, bt, v, 0.0), from_zero, r, t)
    r = _scalar_where(c, _op(c, T.EqOp, bt, v, w), w, r, t)
    nan = c.emit(T.LogicalOrOp.create_from([c.emit(T.NeOp.create_from([v, v], bt)), c.emit(T.NeOp.create_from([w, w], bt))], bt))
    return _scalar_where(c, nan, _op(c, T.AddOp, t, v, w), r, t)


def _euclid_steps(elem: IntegerType) -> int:
    """Euclid's divisions enough for any two magnitudes of `elem`, signed or not (below
    2^width; Lame: n steps need Fibonacci F(n + 2)), and one for a first operand larger than
    the second (a swap)."""
    top = 2**elem.width.data - 1
    fib, n = (1, 2), 0  # F(2), F(3)
    while fib[0] <= top:
        fib, n = (fib[1], fib[0] + fib[1]), n + 1
    return n + 1


def _gcd(c: Converter, a: SSAValue, b: SSAValue) -> SSAValue:
    """ATen's calc_gcd: while a != 0: a, b = b % a, a over |a|, |b|, unrolled to the steps
    that the element type can need (`_euclid_steps`: 93 for int64, 47 for int32); a step
    past a = 0 keeps b (and divides by 1, not 0). Non-negative but for |INT_MIN|, as PyTorch's."""
    t = a.type
    assert isinstance(t, TensorType) and isinstance(t.element_type, IntegerType)
    bt = _bool_type(t)
    a, b = _op(c, T.AbsOp, t, a), _op(c, T.AbsOp, t, b)
    one = c.constant(1, t.element_type)
    for _ in range(_euclid_steps(t.element_type)):
        done = _op(c, T.EqOp, bt, a, 0)
        a, b = _op(c, T.FmodOp, t, b, _scalar_where(c, done, one, a, t)), _scalar_where(c, done, b, a, t)
    return b


@handles("gcd", to="torch.abs, torch.eq, torch.fmod, torch.expand, torch.where")
def _gcd_handler(c: Converter, node, a, b):
    """The greatest common divisor of integers by Euclid's algorithm, unrolled (`_gcd`)."""
    t = c.out_type()
    return _gcd(c, _spread(c, a, t), _spread(c, b, t))


@handles("lcm", to="torch.abs, torch.eq, torch.fmod, torch.div, torch.mul, torch.expand, torch.where")
def _lcm(c: Converter, node, a, b):
    """|a / gcd(a, b) * b| as ATen's lcm (0 where the gcd is: a = b = 0); wraps on overflow."""
    t = c.out_type()
    a, b = _spread(c, a, t), _spread(c, b, t)
    g = _gcd(c, a, b)
    none = _op(c, T.EqOp, _bool_type(t), g, 0)
    zero = c.constant(0, t.element_type)
    quotient = _op(c, T.DivOp, t, a, _scalar_where(c, none, c.constant(1, t.element_type), g, t))
    return _scalar_where(c, none, zero, _op(c, T.AbsOp, t, _op(c, T.MulOp, t, quotient, b)), t)


#: A float's layout by its width: (mantissa bits, exponent field mask, the field of [0.5, 1)).
FLOAT_FIELDS = {32: (23, 0xFF, 126), 64: (52, 0x7FF, 1022)}


@handles("frexp.Tensor", to="torch.abs, torch.mul, torch.lt, torch.gt, torch.logical_and, torch.bitcast, torch.bitwise_right_shift, torch.bitwise_and, torch.bitwise_or, torch.sub, torch.to_dtype, torch.where")
def _frexp(c: Converter, node, x):
    """x as mantissa * 2^exponent, the mantissa's magnitude in [0.5, 1), the exponent int32.

    From x's bits: the exponent field less the field of [0.5, 1), the mantissa x's bits with
    that field put in. A subnormal is first scaled by 2^64 (exact; 64 taken off the exponent).
    0, -0, +-inf and NaN give (x, 0), as PyTorch's."""
    mt, et = c.out_type(0), c.out_type(1)
    elem = mt.element_type
    if T.bit_width(elem) not in FLOAT_FIELDS:
        raise c.fail(f"unsupported frexp of {elem} values (float32 and float64 only)")
    bits, mask, half = FLOAT_FIELDS[T.bit_width(elem)]
    kt = TensorType(IntegerType(T.bit_width(elem)), mt.get_shape())
    bt = _bool_type(mt)
    v = _operand(c, x, elem)
    a = _op(c, T.AbsOp, mt, v)
    sub = _op(c, T.LtOp, bt, a, 2.0**-half)  # below the smallest normal
    scaled = _scalar_where(c, sub, _op(c, T.MulOp, mt, v, 2.0**64), v, mt)
    word = c.emit(T.BitcastOp.create_from([scaled], kt))
    field = _op(c, T.BitwiseAndOp, kt, _op(c, T.BitwiseRightShiftOp, kt, word, bits), mask)
    exponent = _op(c, T.SubOp, kt, field, half)
    exponent = _scalar_where(c, sub, _op(c, T.SubOp, kt, exponent, 64), exponent, kt)
    kept = _op(c, T.BitwiseAndOp, kt, word, ~(mask << bits))
    mantissa = c.emit(T.BitcastOp.create_from([_op(c, T.BitwiseOrOp, kt, kept, half << bits)], mt))
    regular = c.emit(T.LogicalAndOp.create_from([_op(c, T.GtOp, bt, a, 0.0), _op(c, T.LtOp, bt, a, math.inf)], bt))
    zero = c.constant(0, et.element_type)
    return [_scalar_where(c, regular, mantissa, v, mt), _scalar_where(c, regular, c.cast(exponent, et.element_type), zero, et)]


def _merge_sort(c: Converter, v: SSAValue, d: int, descending: bool) -> SSAValue:
    """The positions along `d` (i64, `d` padded to a power of two, the padding's positions
    last) of `v`'s elements in `_box_ranks`' order, by merging: O(n log^2 n) where the box is
    n^2.

    Keys (`_order_keys`) padded with the largest key; keys of 32 bits go over the position
    (key << 32 | position) so that all differ. Leaves of MERGE_LEAF are ranked on their own box
    and their keys scattered in order. Then each level merges pairs of sorted halves of h: an
    element at j of its block of 2h goes to j mod h plus the count of the other half's keys that
    sort before it, found by a binary search of that half (`_merge_search`), and its key is
    scattered there. A level reads only the keys the last one scattered, so no level recomputes
    another's search. Without unique keys (64-bit elements) an equal key sorts before where it
    lies in the first half (a lower position), so ties keep their order, and the positions are
    scattered beside the keys."""
    t = v.type
    assert isinstance(t, TensorType)
    shape, i64 = list(t.get_shape()), IntegerType(64)
    pre, post, n = shape[:d], shape[d + 1:], shape[d]
    size = 1 << max(0, (n - 1).bit_length())
    key = _order_keys(c, v, descending)
    unique = T.bit_width(key.type.element_type) == 32  # type: ignore[attr-defined]
    key = _pad_dim(c, key, d, 0, size - n, -_int_min(key.type.element_type) - 1)  # type: ignore[attr-defined]
    position = _iota(c, len(shape), d, size)
    if unique:
        key = c.cast(key, i64)
        key = c.emit(T.BitwiseOrOp.create_from([_op(c, T.BitwiseLeftShiftOp, key.type, key, 32), position], key.type))
    else:
        position = c.emit(T.ExpandOp.create_from([position], TensorType(i64, [*pre, size, *post])))

    def view(x: SSAValue, *mid: int) -> SSAValue:
        return _reshaped(c, x, [*pre, *mid, *post])

    def placed(x: SSAValue, rank: SSAValue, h: int) -> SSAValue:
        """`x`'s elements scattered to `rank` within blocks of h."""
        x = view(x, size // h, h)
        return _scatter_into(c, c.constant(0, i64, x.type.get_shape()), d + 1, rank, x, True)  # type: ignore[attr-defined]

    h = min(size, MERGE_LEAF)
    rank = _box_ranks(c, view(key, size // h, h), d + 1, False)
    key, order = placed(key, rank, h), None if unique else placed(position, rank, h)
    while h < size:
        j = _iota(c, len(shape) + 1, d + 1, 2 * h)
        second = _op(c, T.GeOp, _bool_type(j.type), j, h)  # type: ignore[arg-type]
        other = _op(c, T.MulOp, j.type, c.cast(c.emit(T.LogicalNotOp.create_from([second], second.type)), i64), h)
        within = _op(c, T.SubOp, j.type, j, _op(c, T.MulOp, j.type, c.cast(second, i64), h))
        keys = view(key, size // (2 * h), 2 * h)
        count = _merge_search(c, keys, d + 1, other, h, None if unique else second)
        rank = c.emit(T.AddOp.create_from([count, within], count.type))
        h *= 2
        key, order = placed(keys, rank, h), None if unique else placed(order, rank, h)  # type: ignore[arg-type]
    key = view(key, size)
    if unique:
        return _op(c, T.BitwiseAndOp, key.type, key, (1 << 32) - 1)
    return view(order, size)  # type: ignore[arg-type]


def _merge_search(c: Converter, keys: SSAValue, d: int, other: SSAValue, h: int, second: SSAValue | None) -> SSAValue:
    """Per key (i64) of blocks of 2h sorted halves along `d`, the count of keys of the half
    starting at `other` (its offset in the block, broadcast) that sort before it: below it, or
    equal where `second` (bool, broadcast) holds. A binary search of log2(h) + 1 probes."""
    t = keys.type
    assert isinstance(t, TensorType)
    boolean = _bool_type(t)

    def before(at: SSAValue) -> SSAValue:
        probe = _gather_value(c, keys, d, c.emit(T.AddOp.create_from([at, other], t)))
        below = c.emit(T.LtOp.create_from([probe, keys], boolean))
        if second is None:
            return below
        tie = c.emit(T.LogicalAndOp.create_from([c.emit(T.EqOp.create_from([probe, keys], boolean)), second], boolean))
        return c.emit(T.LogicalOrOp.create_from([below, tie], boolean))

    pos = c.constant(0, t.element_type, t.get_shape())
    step = h // 2
    while step:
        at = _op(c, T.AddOp, t, pos, step - 1)
        pos = _op(c, T.AddOp, t, pos, _op(c, T.MulOp, t, c.cast(before(at), t.element_type), step))
        step //= 2
    return c.emit(T.AddOp.create_from([pos, c.cast(before(pos), t.element_type)], t))


def _sorted(c: Converter, v: SSAValue, d: int, descending: bool, at: Sequence[int]) -> list[SSAValue]:
    """(values, indices) of `v` sorted along `d` (stable, NaN above all: `_sort_ranks`) at the
    sorted positions `at` only: the index at position r is the sum over i of i where rank_i == r
    (the box [.., r, i, ..]), the value a gather of it, so values keep their bits (-0.0)."""
    t = v.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    if _sort_plan(math.prod(shape) // shape[d], shape[d], len(at)):
        return _merged(c, v, d, descending, at)
    rank = _box_ranks(c, v, d, descending)
    wanted = _laid(c, len(shape) + 1, d, at)
    hit = c.emit(T.EqOp.create_from([_unsqueezed(c, rank, d), wanted],
                                    TensorType(IntegerType(1), [*shape[:d], len(at), *shape[d:]])))  # fmt: skip
    at_i = _iota(c, len(shape) + 1, d + 1, shape[d])
    picked = _scalar_where(c, hit, at_i, c.constant(0, IntegerType(64)), TensorType(IntegerType(64), hit.type.get_shape()))  # type: ignore[attr-defined]
    out_shape = [*shape[:d], len(at), *shape[d + 1 :]]
    indices = c.emit(T.SumOp(picked, [d + 1], False, TensorType(IntegerType(64), out_shape)))
    return [_gather_value(c, v, d, indices), indices]


def _merged(c: Converter, v: SSAValue, d: int, descending: bool, at: Sequence[int]) -> list[SSAValue]:
    """`_sorted` of a long row: the positions `at` (consecutive) of `_merge_sort`'s order, and
    the values there."""
    assert list(at) == list(range(at[0], at[0] + len(at))), at
    indices = _slice_value(c, _merge_sort(c, v, d, descending), d, at[0], at[0] + len(at))
    return [_gather_value(c, v, d, indices), indices]


@handles("sort", to="torch.lt, torch.eq, torch.isnan, torch.logical_and, torch.logical_or, torch.sum, torch.where, torch.index_select, torch.bitcast, torch.scatter_reduce")
def _sort(c: Converter, node, *args, **kwargs):
    """(values, indices) along `dim`, stable: each element's rank counted on an n x n compare
    (`_box_ranks`), the index at each position summed from the ranks, n^2 along the dim; a long
    row by merging (`_merge_sort`, n log^2 n) where `_sort_plan` finds it cheaper."""
    a = bound_args(node)
    x = a["self"]
    v = c.cast(c.value(x), c.out_type(0).element_type)
    if c.rank(x) == 0:
        return [v, c.constant(0, IntegerType(64))]
    d = norm_dim(a["dim"], c.rank(x))
    return _sorted(c, v, d, bool(a["descending"]), range(c.shape(x)[d]))


#: top-k takes its k elements one round each (two passes over the row a round) where k is at
#: most TOPK_ROUNDS and the row at least TOPK_ROW_PER_K times k long; else it counts ranks on the
#: n x n box (`_sorted`, n passes' worth of compares in one reduction). H200 (2026-11-30,
#: session 33, bench/results/session33/tools/ab33w.py, ranks -> rounds, us): the 8 largest of
#: 4096 x 1024 3160 -> 98 (eager 137), the 4 smallest of 1000 x 777 641 -> 34, the 16 largest of
#: 4 x 32000 2758 -> 153 (eager 54: four rows leave most of the GPU idle each round); the 2 of
#: 8192 x 8 keep the ranks (3.8).
TOPK_ROUNDS = 16
TOPK_ROW_PER_K = 8


def _topk_rounds(c: Converter, v: SSAValue, d: int, k: int, largest: bool) -> list[SSAValue]:
    """(values, indices) of the k largest (smallest) along `d`, in order, ties lower index first,
    NaN above every number (first when largest, last when smallest), as `_sorted` orders them:
    round r takes the extreme m of the elements that sort after round r-1's pick (all in round
    0) and the lowest index i holding it; an element j sorts after (m, i) where it is below
    (above) m, or equal with j > i (NaNs equal each other)."""
    t = v.type
    assert isinstance(t, TensorType)
    shape, elem = list(t.get_shape()), t.element_type
    kept = TensorType(elem, [*shape[:d], 1, *shape[d + 1:]])
    i64, boolean = IntegerType(64), _bool_type(t)
    kept_i, kept_b = TensorType(i64, kept.get_shape()), _bool_type(kept)
    at = _iota(c, len(shape), d, shape[d])
    floaty = not _is_int(elem)

    def op(cls, *xs, ty=boolean):
        return c.emit(cls.create_from(list(xs), ty))

    nan = op(T.IsnanOp, v) if floaty else None
    number = op(T.LogicalNotOp, nan) if floaty else None
    picks, cand = [], None
    for _ in range(k):
        if largest:
            pool = v if cand is None else _scalar_where(c, cand, v, c.constant(_identity_of(elem, "max"), elem), t)
            m = c.emit(T.AmaxOp(pool, [d], True, kept))  # NaN among the candidates: NaN
        else:
            real = cand if not floaty else (number if cand is None else op(T.LogicalAndOp, cand, number))
            pool = v if real is None else _scalar_where(c, real, v, c.constant(_identity_of(elem, "min"), elem), t)
            m = c.emit(T.AminOp(pool, [d], True, kept))
            if floaty:  # only NaNs left: NaN
                has = c.emit(T.AnyOp(real, [d], True, kept_b))
                m = _scalar_where(c, has, m, c.constant(math.nan, elem), kept)
        same = op(T.EqOp, v, m)
        if floaty:
            m_nan = op(T.IsnanOp, m, ty=kept_b)
            same = op(T.LogicalOrOp, same, op(T.LogicalAndOp, nan, m_nan))
        hit = same if cand is None else op(T.LogicalAndOp, same, cand)
        i = c.emit(T.AminOp(_scalar_where(c, hit, at, c.constant(shape[d], i64), TensorType(i64, shape)), [d], True, kept_i))
        picks.append(i)
        later = op(T.LogicalAndOp, same, op(T.GtOp, at, i))
        beyond = op(T.LtOp if largest else T.GtOp, v, m)
        if not floaty:
            cand = op(T.LogicalOrOp, beyond, later)
            continue
        if largest:  # after NaN m: later NaNs and every number; after a number: smaller numbers
            cand = _scalar_where(c, m_nan, op(T.LogicalOrOp, later, number),
                                 op(T.LogicalAndOp, number, op(T.LogicalOrOp, beyond, later)), boolean)  # fmt: skip
        else:  # after NaN m: later NaNs; after a number: NaNs and larger numbers
            cand = _scalar_where(c, m_nan, later, op(T.LogicalOrOp, nan, op(T.LogicalOrOp, beyond, later)), boolean)
    out_i = TensorType(i64, [*shape[:d], k, *shape[d + 1:]])
    indices = picks[0] if k == 1 else c.emit(T.CatOp.create_from(picks, out_i, {"dim": IntAttr(d)}))
    return [_gather_value(c, v, d, indices), indices]


#: A level of blocks in top-k by ranks (`_topk_plan`) costs about TOPK_LEVEL_S of launches
#: beyond its compares, which run at BOX_COMPARES_PER_S. H200 (2026-12-02, session 39,
#: bench/results/session39/tools/ab39.py, box / blocks, ms): the top 100 of 256 x 4096 2.75 /
#: 0.53 (4.4e9 compares on the box: 1.6e12 a second), 1000 of 16 x 100003 99.5 / 6.5, 32 of
#: 4096 x 1024 3.20 / 1.54, 20 smallest of 32 x 9999 2.61 / 0.074; eager 0.05-0.14.
#: `_topk_plan` caches its answers: `_topk_plan.cache_clear()` after changing these.
TOPK_LEVEL_S = 10e-6
BOX_COMPARES_PER_S = 1.6e12


@functools.lru_cache(maxsize=None)
def _topk_plan(rows: int, n: int, k: int) -> tuple[float, int]:
    """(estimated seconds, block) of the cheapest way to take the top k of each of `rows` rows of
    n by ranks: `_sorted` (the n x n box, n (n + k) compares a row, or merging where
    `_sort_plan` finds it cheaper; block 0), or blocks of a
    power of two B, 2k <= B <= n / 2 (`_topk_blocked`: n (B + k) compares a row for the blocks'
    top k, TOPK_LEVEL_S, then the cheapest plan for the k of their ceil(n / B) k candidates)."""
    best = (rows * n * (n + k) / BOX_COMPARES_PER_S, 0)
    if _sort_plan(rows, n, k):
        best = (_merge_seconds(rows, n), 0)
    block = 1 << max(1, (2 * k - 1).bit_length())
    while 2 * block <= n:
        blocks = -(-n // block)
        cost = rows * blocks * block * (block + k) / BOX_COMPARES_PER_S + TOPK_LEVEL_S
        best = min(best, (cost + _topk_plan(rows, blocks * k, k)[0], block))
        block *= 2
    return best


def _topk_blocked(c: Converter, v: SSAValue, d: int, k: int, largest: bool, block: int) -> list[SSAValue]:
    """(values, indices) of the k largest (smallest) along `d` in `_sorted`'s order: the row cut
    into blocks of `block` (padded at the end with elements that sort after all: -inf largest,
    NaN smallest, the integer type's extremes), each block's top k by `_sorted`, then the top k
    of those candidates (`_topk_by_ranks`). The candidates lie block after block, each block's
    in order, so equal values still come lowest index first."""
    t = v.type
    assert isinstance(t, TensorType)
    shape, elem, i64 = list(t.get_shape()), t.element_type, IntegerType(64)
    n = shape[d]
    blocks = -(-n // block)
    if blocks * block > n:
        if _is_int(elem):
            pad = _identity_of(elem, "max" if largest else "min")
        else:
            pad = -math.inf if largest else math.nan
        v = _pad_dim(c, v, d, 0, blocks * block - n, pad)
    view = TensorType(elem, [*shape[:d], blocks, block, *shape[d + 1:]])
    values, local = _sorted(c, c.emit(T.ReshapeOp.create_from([v], view)), d + 1, largest, range(k))
    start = _op(c, T.MulOp, TensorType(i64, [1] * d + [blocks] + [1] * (len(shape) - d)),
                _iota(c, len(shape) + 1, d, blocks), block)  # fmt: skip
    at = c.emit(T.AddOp.create_from([local, start], local.type))
    flat = [*shape[:d], blocks * k, *shape[d + 1:]]
    values = c.emit(T.ReshapeOp.create_from([values], TensorType(elem, flat)))
    at = c.emit(T.ReshapeOp.create_from([at], TensorType(i64, flat)))
    top, pos = _topk_by_ranks(c, values, d, k, largest)
    return [top, _gather_value(c, at, d, pos)]


def _topk_by_ranks(c: Converter, v: SSAValue, d: int, k: int, largest: bool) -> list[SSAValue]:
    """The top k along `d` by ranks: on the n x n box (`_sorted`) or, where `_topk_plan` finds
    it cheaper, in blocks (`_topk_blocked`)."""
    shape = v.type.get_shape()  # type: ignore[attr-defined]
    _, block = _topk_plan(math.prod(shape) // shape[d], shape[d], k)
    if block:
        return _topk_blocked(c, v, d, k, largest, block)
    return _sorted(c, v, d, largest, range(k))


#: A long row's top k by a radix select (`_topk_radix`): the k-th key found TOPK_RADIX_BITS bits
#: a pass (2^bits - 1 counts of the row a pass, each a compare: BOX_COMPARES_PER_S), then one
#: pass of counts per TOPK_RADIX_CHUNK elements, their running sums and a search per slot.
#: `_topk_radix_seconds` prices a pass at TOPK_PASS_S of launches and syncs plus its compares,
#: and the rest at TOPK_TAIL_S (both fitted to the one case below). H200 (2026-12-04, session
#: 48, bench/results/session48/tools/topk48.py): the top 100 of 16 x 1310720 (CenterNet's
#: decode), 4 bits a pass: 0.29 ms a pass (compares, the key recomputed for each), about
#: 0.03 ms a launch; 86 kernels, 6.5 ms in all (8.5 in blocks of 256, eager 0.41), exactly
#: PyTorch's values and indices.
TOPK_RADIX_BITS = 4
TOPK_RADIX_CHUNK = 64
TOPK_PASS_S = 60e-6
TOPK_TAIL_S = 600e-6


def _topk_radix_seconds(rows: int, n: int, k: int, bits: int = 32) -> float:
    """`_topk_radix`'s estimated time for the top k of `rows` rows of n keys of `bits` bits:
    ceil(bits / TOPK_RADIX_BITS) counting passes, the chunks' counts and search (TOPK_TAIL_S),
    and the k candidates' ranks (`_topk_plan`)."""
    digit = TOPK_RADIX_BITS
    passes = -(-bits // digit)
    per_pass = TOPK_PASS_S + rows * n * ((1 << digit) - 1) / BOX_COMPARES_PER_S
    return passes * per_pass + TOPK_TAIL_S + _topk_plan(rows, k, k)[0]


def _topk_radix(c: Converter, v: SSAValue, d: int, k: int, largest: bool) -> list[SSAValue]:
    """(values, indices) of the k largest (smallest) along `d` in `_sorted`'s order by a radix
    select. Keys (`_order_keys`: i32, or i64 for 64-bit elements) sort in the order wanted; T,
    the k-th smallest key of the row, is found TOPK_RADIX_BITS bits a pass from the top: with
    P = T >> s known down to bit s + bits, the counts of keys with key >> s below P + j
    (j = 1 .. 2^bits - 1, one sum over the row) give the next digit, the count of j whose count
    is below k (no candidate overflows: P + j never passes the largest key's prefix). Then the
    k elements taken are those below T and the first k - count(below T) equal to it, in index
    order: one running count of the row packs both (below + equal << 32), and the element of
    each slot s is the first index whose count reaches s + 1 (a binary search). The k (in index
    order) are ranked on their own box (`_topk_by_ranks`), so ties keep the lower index first;
    values are gathered, so they keep their bits (-0.0)."""
    t = v.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    n, rank = shape[d], len(shape)
    i32, i64 = IntegerType(32), IntegerType(64)
    key = _order_keys(c, v, largest)
    kt = key.type
    assert isinstance(kt, TensorType)
    ke = kt.element_type
    width = T.bit_width(ke)
    kept = [*shape[:d], 1, *shape[d + 1:]]
    kept_t = TensorType(ke, kept)
    digits_t = lambda m: TensorType(ke, [*shape[:d], m, *shape[d + 1:]])  # noqa: E731
    keys_box = _unsqueezed(c, key, d)  # [.., 1, n, ..]
    prefix, s = None, width
    while s > 0:
        b = min(TOPK_RADIX_BITS, s)
        s -= b
        m = (1 << b) - 1
        if prefix is None:
            prefix = c.constant(-(1 << (b - 1)), ke, kept)  # the smallest key >> s
        else:
            prefix = _op(c, T.BitwiseLeftShiftOp, kept_t, prefix, b)
        cand = c.emit(T.AddOp.create_from([prefix, _laid(c, rank, d, range(1, m + 1), ke)], digits_t(m)))
        cand = _unsqueezed(c, cand, d + 1)  # [.., m, 1, ..]
        high = keys_box if s == 0 else _op(c, T.BitwiseRightShiftOp, keys_box.type, keys_box, s)
        box = [*shape[:d], m, n, *shape[d + 1:]]
        below = c.emit(T.LtOp.create_from([high, cand], TensorType(IntegerType(1), box)))
        counts = c.emit(T.SumOp(c.cast(below, i32), [d + 1], False, TensorType(i32, digits_t(m).get_shape())))
        few = _op(c, T.LtOp, _bool_type(counts.type), counts, k)  # type: ignore[arg-type]
        digit = c.emit(T.SumOp(c.cast(few, ke), [d], True, kept_t))
        prefix = c.emit(T.AddOp.create_from([prefix, digit], kept_t))
    top = prefix
    assert top is not None
    boolean = _bool_type(kt)
    lt = c.cast(c.emit(T.LtOp.create_from([key, top], boolean)), i64)
    eq = c.cast(c.emit(T.EqOp.create_from([key, top], boolean)), i64)
    wide = TensorType(i64, shape)
    packed = c.emit(T.AddOp.create_from([lt, _op(c, T.BitwiseLeftShiftOp, wide, eq, 32)], wide))
    cw = TOPK_RADIX_CHUNK
    nc = -(-n // cw)
    packed = _pad_dim(c, packed, d, 0, nc * cw - n)  # padding neither below nor equal: never taken
    pre, post = shape[:d], shape[d + 1:]
    chunked = _reshaped(c, packed, [*pre, nc, cw, *post])
    per_chunk = c.emit(T.SumOp(chunked, [d + 1], False, TensorType(i64, [*pre, nc, *post])))
    running = _blocked_cumsum(c, per_chunk, d)  # inclusive, a chunk's: below | equal << 32
    low = (1 << 32) - 1
    kept64 = TensorType(i64, kept)
    room = _op(c, T.SubOp, kept64, c.constant(k, i64, kept),
               _op(c, T.BitwiseAndOp, kept64, _slice_value(c, running, d, nc - 1, nc), low))  # fmt: skip
    out_t = TensorType(i64, [*pre, k, *post])
    slot = c.emit(T.ExpandOp.create_from([_laid(c, rank, d, range(k))], out_t))
    want = _op(c, T.AddOp, out_t, slot, 1)

    def taken(r: SSAValue, ty: TensorType, room: SSAValue = room) -> SSAValue:
        """The count of elements taken of running counts `r` (below | equal << 32)."""
        equal = c.emit(T.MinimumOp.create_from([_op(c, T.BitwiseRightShiftOp, ty, r, 32), room], ty))
        return c.emit(T.AddOp.create_from([_op(c, T.BitwiseAndOp, ty, r, low), equal], ty))

    pos = c.constant(0, i64, out_t.get_shape())
    step = 1 << (nc.bit_length() - 1)
    while step:  # the chunk where the count reaches slot + 1
        at = c.emit(T.MinimumOp.create_from([_op(c, T.AddOp, out_t, pos, step - 1), c.constant(nc - 1, i64, out_t.get_shape())], out_t))
        short = c.emit(T.LtOp.create_from([taken(_gather_value(c, running, d, at), out_t), want], _bool_type(out_t)))
        pos = c.emit(T.AddOp.create_from([pos, _op(c, T.MulOp, out_t, c.cast(short, i64), step)], out_t))
        step //= 2
    before = c.emit(T.SubOp.create_from([_gather_value(c, running, d, pos), _gather_value(c, per_chunk, d, pos)], out_t))
    box_t = TensorType(i64, [*pre, k, cw, *post])
    at = c.emit(T.ExpandOp.create_from([_unsqueezed(c, pos, d + 1)], box_t))
    mine = _gather_value(c, chunked, d, at)  # [.., slot, j, ..]: the slot's chunk's packed counts
    below_j = _op(c, T.BitwiseAndOp, box_t, mine, low)
    equal_j = _op(c, T.BitwiseRightShiftOp, box_t, mine, 32)
    before_b = _unsqueezed(c, before, d + 1)

    def earlier(x: SSAValue) -> SSAValue:
        """Per j of the chunk, the sum of `x` over j' < j (one box sum, cw^2 a slot)."""
        mask = _index_compare(c, T.LtOp, rank + 2, d + 2, d + 1, cw)  # j' < j
        spread = _unsqueezed(c, x, d + 1)  # [.., slot, 1, j', ..]
        box = TensorType(i64, [*pre, k, cw, cw, *post])
        return c.emit(T.SumOp(_scalar_where(c, mask, spread, c.constant(0, i64), box), [d + 2], False, box_t))

    eq_before = earlier(equal_j)
    eq_before = c.emit(T.AddOp.create_from([eq_before, _op(c, T.BitwiseRightShiftOp, before_b.type, before_b, 32)], box_t))
    room_b = _unsqueezed(c, room, d + 1)
    fits = c.emit(T.LtOp.create_from([eq_before, room_b], _bool_type(box_t)))
    take = c.emit(T.AddOp.create_from([below_j, _op(c, T.MulOp, box_t, equal_j, c.cast(fits, i64))], box_t))
    count = earlier(take)
    count = c.emit(T.AddOp.create_from([count, taken(before_b, before_b.type, room_b)], box_t))  # type: ignore[arg-type]
    slot_b = _unsqueezed(c, slot, d + 1)
    hit = c.emit(T.EqOp.create_from([count, slot_b], _bool_type(box_t)))
    hit = c.emit(T.LogicalAndOp.create_from([hit, c.emit(T.NeOp.create_from([take, c.constant(0, i64)], _bool_type(box_t)))], _bool_type(box_t)))
    j = _iota(c, rank + 1, d + 1, cw)
    offset = c.emit(T.SumOp(_scalar_where(c, hit, j, c.constant(0, i64), box_t), [d + 1], False, out_t))
    pos = c.emit(T.AddOp.create_from([_op(c, T.MulOp, out_t, pos, cw), offset], out_t))
    values = _gather_value(c, v, d, pos)
    top_v, order = _topk_by_ranks(c, values, d, k, largest)
    return [top_v, _gather_value(c, pos, d, order)]


def _topk_way(rows: int, n: int, k: int, bits: int) -> str:
    """How `_topk` takes the top k of `rows` rows of n elements of `bits` bits: "rounds"
    (`_topk_rounds`), "radix" (`_topk_radix`, where its estimate is below `_topk_plan`'s) or
    "ranks" (`_topk_by_ranks`)."""
    if 0 < k <= TOPK_ROUNDS and n >= TOPK_ROW_PER_K * k:
        return "rounds"
    if 0 < k < n and _topk_radix_seconds(rows, n, k, 64 if bits == 64 else 32) < _topk_plan(rows, n, k)[0]:
        return "radix"
    return "ranks"


@handles("topk", to="torch.lt, torch.eq, torch.sum, torch.where, torch.index_select, torch.amax, torch.amin, torch.cat, torch.reshape, torch.mul, torch.add")
def _topk(c: Converter, node, x, k, dim=-1, largest=True, sorted=True):
    """The k largest (smallest) along `dim`, in order (also where sorted=False): for few k of a
    long row, one round per element (`_topk_rounds`); else by ranks (`_topk_by_ranks`: the n x n
    box, or blocks' top k and then theirs). Ties take the lower index first (PyTorch leaves that
    order open)."""
    if c.rank(x) == 0:
        raise c.fail("unsupported topk of a 0-d tensor")
    v = c.cast(c.value(x), c.out_type(0).element_type)
    d = norm_dim(dim, c.rank(x))
    shape = c.shape(x)
    way = _topk_way(math.prod(shape) // max(1, shape[d]), shape[d], k, T.bit_width(c.out_type(0).element_type))
    if way == "rounds":
        return _topk_rounds(c, v, d, k, bool(largest))
    if way == "radix":
        return _topk_radix(c, v, d, k, bool(largest))
    return _topk_by_ranks(c, v, d, k, bool(largest))


def _order_statistic(c: Converter, v: SSAValue, d: int, r: int, keepdim: bool, t: TensorType, it: TensorType):
    values, indices = _sorted(c, v, d, False, [r])
    if keepdim:
        return [values, indices]
    return [c.emit(T.ReshapeOp.create_from([values], t)), c.emit(T.ReshapeOp.create_from([indices], it))]


@handles("kthvalue", to="torch.lt, torch.eq, torch.sum, torch.where, torch.index_select, torch.reshape")
def _kthvalue(c: Converter, node, x, k, dim=-1, keepdim=False):
    """(value, index) of the k-th smallest along `dim`: `_sorted` at position k - 1 (NaN above
    all; among equal values the lowest index, where PyTorch's may differ)."""
    if c.rank(x) == 0:
        raise c.fail("unsupported kthvalue of a 0-d tensor")
    d = norm_dim(dim, c.rank(x))
    v = c.cast(c.value(x), c.out_type(0).element_type)
    return _order_statistic(c, v, d, k - 1, keepdim, c.out_type(0), c.out_type(1))


@handles("median", to="torch.lt, torch.eq, torch.sum, torch.where, torch.index_select, torch.any, torch.amin")
def _median(c: Converter, node, x, dim=None, keepdim=False):
    """The lower median along `dim` (of all elements without one), and its index: `_sorted` at
    position (n - 1) // 2; where the row holds a NaN, its first NaN (PyTorch propagates NaN)."""
    return _lower_median(c, node, x, dim, keepdim, skip_nan=False)


@handles("mode", to="torch.bitcast, torch.eq, torch.where, torch.isnan, torch.sum, torch.amax, torch.amin, torch.index_select, torch.reshape")
def _mode(c: Converter, node, x, dim=-1, keepdim=False):
    """(value, index) of the most frequent value along `dim` (the smallest among as frequent),
    at its last occurrence, as PyTorch's CPU for rows of up to 16 (longer, its index is any
    occurrence: an unstable sort). Each element's count of equals on an n x n compare of the
    sort's keys (`_order_keys`: -0.0 equals 0.0, NaNs equal each other, above everything)."""
    t = c.out_type(0)
    v = c.cast(c.value(x), t.element_type)
    if c.rank(x) == 0:
        return [v, c.constant(0, IntegerType(64))]
    d = norm_dim(dim, c.rank(x))
    shape = list(c.shape(x))
    i64, n = IntegerType(64), shape[d]
    key = _order_keys(c, v, False)
    kt = key.type
    assert isinstance(kt, TensorType)
    kept = TensorType(i64, [*shape[:d], 1, *shape[d + 1 :]])
    box = TensorType(IntegerType(1), [*shape[: d + 1], n, *shape[d + 1 :]])
    same = c.emit(T.EqOp.create_from([_unsqueezed(c, key, d + 1), _unsqueezed(c, key, d)], box))
    count = c.emit(T.SumOp(c.cast(same, i64), [d + 1], False, TensorType(i64, shape)))
    most = _op(c, T.EqOp, _bool_type(count.type), count, c.emit(T.AmaxOp(count, [d], True, kept)))  # type: ignore[arg-type]
    top = c.constant(-_int_min(kt.element_type) - 1, kt.element_type)
    least = _scalar_where(c, most, key, top, kt)
    mode = c.emit(T.AminOp(least, [d], True, TensorType(kt.element_type, kept.get_shape())))
    at = _op(c, T.EqOp, _bool_type(kt), key, mode)
    last = _scalar_where(c, at, _iota(c, len(shape), d, n), c.constant(-1, i64), TensorType(i64, shape))
    index = c.emit(T.AmaxOp(last, [d], True, kept))
    value = _gather_value(c, v, d, index)
    if keepdim:
        return [value, index]
    return [_reshaped(c, value, t.get_shape()), _reshaped(c, index, c.out_type(1).get_shape())]


@handles("nanmedian", to="torch.lt, torch.eq, torch.isnan, torch.sum, torch.mul, torch.trunc, torch.where, torch.index_select")
def _nanmedian(c: Converter, node, x, dim=None, keepdim=False):
    """The lower median of the non-NaN elements along `dim` (of all without one), and its index.

    The element whose rank (`_sort_ranks`: NaN above all) is trunc((count - 1) / 2), count the
    row's non-NaN elements (ATen's C division); among equal values the lowest index, as
    PyTorch's. A row of NaN only gives NaN at index 0 (PyTorch's index there is whichever NaN its
    nth_element leaves in place). Integers have no NaN: median's."""
    return _lower_median(c, node, x, dim, keepdim, skip_nan=True)


def _lower_median(c: Converter, node, x, dim, keepdim: bool, skip_nan: bool):
    """median (skip_nan False) or nanmedian of `x` along `dim` (all elements where None): values
    and indices, or the value alone without a dim."""
    t = c.out_type(0) if isinstance(node.meta["val"], (tuple, list)) else c.out_type()
    v = c.cast(c.value(x), t.element_type)
    if dim is None or c.rank(x) == 0:
        v = c.emit(T.ReshapeOp.create_from([v], TensorType(t.element_type, [math.prod(c.shape(x))])))
    d = 0 if dim is None or c.rank(x) == 0 else norm_dim(dim, c.rank(x))
    shape = list(v.type.get_shape())  # type: ignore[attr-defined]
    kept = TensorType(t.element_type, [*shape[:d], 1, *shape[d + 1 :]])
    it = TensorType(IntegerType(64), kept.get_shape())
    if _is_int(t.element_type):
        _, index = _sorted(c, v, d, False, [(shape[d] - 1) // 2])
    elif skip_nan:
        index = _nan_skipping_median(c, v, d, kept)
    else:
        _, index = _sorted(c, v, d, False, [(shape[d] - 1) // 2])
        nan = c.emit(T.IsnanOp.create_from([v], _bool_type(v.type)))  # type: ignore[arg-type]
        has_nan = c.emit(T.AnyOp(nan, [d], True, _bool_type(kept)))
        at = _iota(c, len(shape), d, shape[d])
        nan_at = _scalar_where(c, nan, at, c.constant(shape[d], IntegerType(64)), TensorType(IntegerType(64), shape))
        first_nan = c.emit(T.AminOp(nan_at, [d], True, it))
        index = _scalar_where(c, has_nan, first_nan, index, it)
    values = _gather_value(c, v, d, index)
    if dim is None:
        return c.emit(T.ReshapeOp.create_from([values], t))
    if keepdim:
        return [values, index]
    return [c.emit(T.ReshapeOp.create_from([values], t)), c.emit(T.ReshapeOp.create_from([index], c.out_type(1)))]


def _nan_skipping_median(c: Converter, v: SSAValue, d: int, kept: TensorType) -> SSAValue:
    """The index (i64, `kept`'s shape) along `d` of the element of float `v` whose rank among
    them is trunc((count - 1) / 2), count its row's non-NaN elements: the sum of the positions
    holding that rank (one each: ranks are distinct)."""
    t = v.type
    assert isinstance(t, TensorType)
    shape, i64 = list(t.get_shape()), IntegerType(64)
    ranks = _sort_ranks(c, v, d, False)
    number = c.emit(T.LogicalNotOp.create_from([c.emit(T.IsnanOp.create_from([v], _bool_type(t)))], _bool_type(t)))
    count = c.emit(T.SumOp(_scalar_where(c, number, c.constant(1.0, t.element_type), c.constant(0.0, t.element_type), t),
                           [d], True, kept))  # fmt: skip
    half = _op(c, T.MulOp, kept, _op(c, T.SubOp, kept, count, 1.0), 0.5)
    wanted = c.cast(_op(c, T.TruncOp, kept, half), i64)
    hit = _op(c, T.EqOp, _bool_type(ranks.type), ranks, wanted)  # type: ignore[arg-type]
    at = _scalar_where(c, hit, _iota(c, len(shape), d, shape[d]), c.constant(0, i64), TensorType(i64, shape))
    return c.emit(T.SumOp(at, [d], True, TensorType(i64, kept.get_shape())))


def _scatter_hits(c: Converter, idx: SSAValue, d: int, n: int) -> tuple[SSAValue, list[int]]:
    """The box [.., p, k, ..] of a scatter along `d` into `n` positions (k along `idx`, i64,
    inserted after d) and its bools hit = idx_k == p."""
    it = idx.type
    assert isinstance(it, TensorType)
    ishape = list(it.get_shape())
    box = [*ishape[:d], n, ishape[d], *ishape[d + 1 :]]
    hit = c.emit(T.EqOp.create_from([_unsqueezed(c, idx, d), _iota(c, len(ishape) + 1, d, n)],
                                    TensorType(IntegerType(1), box)))  # fmt: skip
    return hit, box


def _scatter_into(c: Converter, base: SSAValue, d: int, idx: SSAValue, vals: SSAValue, accumulate: bool) -> SSAValue:
    """`base` with `vals` written along `d` at `idx` (i64, of vals' rank, broadcasting with it;
    their dims other than d no larger than base's: base's positions past them stay), by
    `torch.scatter_reduce`s (atomics on the GPU, work in proportion to the values).
    Accumulating, each value added at its index. Else where some k writes p, vals at the last
    such k (PyTorch's CPU loop; its GPU leaves duplicates open): the max of k over the writes
    to p (-1 where none), gathered."""
    t, it, vt = base.type, idx.type, vals.type
    assert isinstance(t, TensorType) and isinstance(it, TensorType) and isinstance(vt, TensorType)
    shape, elem = list(t.get_shape()), t.element_type
    rank, n, k = len(shape), shape[d], it.get_shape()[d]
    ishape = list(it.get_shape())
    along = [max(a, b) for a, b in zip(ishape, vt.get_shape())]  # the writes' shape
    along[d] = n
    src_shape = list(along)
    src_shape[d] = k
    at_dim = {"dim": IntAttr(d)}
    if accumulate and elem == IntegerType(1):  # no atomic add of bools: counts, then whether nonzero
        i32 = IntegerType(32)
        return c.cast(_scatter_into(c, c.cast(base, i32), d, idx, c.cast(vals, i32), True), elem)
    if accumulate:
        if ishape != src_shape:
            idx = c.emit(T.ExpandOp.create_from([idx], TensorType(it.element_type, src_shape)))
        if tuple(vt.get_shape()) != tuple(src_shape):
            vals = c.emit(T.ExpandOp.create_from([vals], TensorType(elem, src_shape)))
        return c.emit(T.ScatterReduceOp.create_from([base, idx, vals], t, {**at_dim, "reduce": StringAttr("sum")}))
    i64 = IntegerType(64)
    ks = _iota(c, rank, d, k)
    if list(ks.type.get_shape()) != ishape:  # type: ignore[attr-defined]
        ks = c.emit(T.ExpandOp.create_from([ks], TensorType(i64, ishape)))
    ishape[d] = n
    none = c.constant(-1, i64, ishape)
    last = c.emit(T.ScatterReduceOp.create_from([none, idx, ks], TensorType(i64, ishape), {**at_dim, "reduce": StringAttr("amax")}))
    if ishape != along:
        last = c.emit(T.ExpandOp.create_from([last], TensorType(i64, along)))
    wrote = c.emit(T.GeOp.create_from([last, c.constant(0, i64)], TensorType(IntegerType(1), along)))
    at = c.emit(T.MaximumOp.create_from([last, c.constant(0, i64)], last.type))
    if tuple(vt.get_shape()) != tuple(src_shape):
        vals = c.emit(T.ExpandOp.create_from([vals], TensorType(elem, src_shape)))
    out = _gather_value(c, vals, d, at)
    for i in range(rank):
        out = _pad_dim(c, out, i, 0, shape[i] - along[i])
        wrote = _pad_dim(c, wrote, i, 0, shape[i] - along[i])
    return _scalar_where(c, wrote, out, base, t)


def _positions_in(c: Converter, seq: SSAValue, vals: SSAValue, right: bool) -> SSAValue:
    """Each value's insertion position (i64) in `seq`, sorted along its last dim: the count of
    elements below it (at or below with `right`), as PyTorch's binary search finds it (a NaN
    value past them all). A 1-d `seq` serves every value; else its leading dims are the values'
    (searchsorted's rows)."""
    st, vt = seq.type, vals.type
    assert isinstance(st, TensorType) and isinstance(vt, TensorType)
    n, vshape = st.get_shape()[-1], list(vt.get_shape())
    box = TensorType(IntegerType(1), [*vshape, n])
    srank = len(st.get_shape())
    s = seq if srank == 1 else _unsqueezed(c, seq, srank - 1)  # [.., 1, n]
    # n minus those it is at or below (below, on the right): a NaN value is past every element
    above = c.emit((T.LtOp if right else T.LeOp).create_from([_unsqueezed(c, vals, len(vshape)), s], box))
    i64 = IntegerType(64)
    count = c.emit(T.SumOp(c.cast(above, i64), [len(vshape)], False, TensorType(i64, vshape)))
    return c.emit(T.SubOp.create_from([c.constant(n, i64), count], count.type))


def _search_sorted(c: Converter, seq: SSAValue, vals: SSAValue, right: bool) -> SSAValue:
    """`_positions_in` by a binary search: each value's count of `seq`'s elements below it (at
    or below with `right`), seq sorted along its last dim (1-d, or rows whose leading dims are
    the values'), in bit_length(n) probes of one gather each rather than n compares. For values
    without NaN (positions, sizes)."""
    st, vt = seq.type, vals.type
    assert isinstance(st, TensorType) and isinstance(vt, TensorType)
    n, rank = st.get_shape()[-1], len(st.get_shape())
    t = TensorType(IntegerType(64), vt.get_shape())
    boolean = _bool_type(t)
    vals = c.cast(vals, st.element_type)
    pos = c.constant(0, IntegerType(64), t.get_shape())
    step = 1 << (n.bit_length() - 1) if n else 0
    while step:  # take `step` more where they fit and the last of them lies below the value
        probe = _op(c, T.AddOp, t, pos, step)
        at = _op(c, T.SubOp, t, _op(c, T.MinimumOp, t, probe, n), 1)
        seen = _flat_lookup(c, seq, at) if rank == 1 else _gather_value(c, seq, rank - 1, at)
        below = c.emit((T.LeOp if right else T.LtOp).create_from([seen, vals], boolean))
        fits = c.emit(T.LogicalAndOp.create_from([_op(c, T.LeOp, boolean, probe, n), below], boolean))
        pos = _scalar_where(c, fits, probe, pos, t)
        step //= 2
    return pos


def _segment_ids(c: Converter, starts: SSAValue, n: int) -> SSAValue:
    """The segment of each of n positions (i64, [.., n]) given the segments' sorted starts
    (i64 [.., segments]; rows of their own where it has leading dims): the count of starts at
    or before it, less one (an empty segment's start is the next one's, so none lands in it)."""
    st = starts.type
    assert isinstance(st, TensorType)
    shape = list(st.get_shape())
    at = _iota(c, len(shape), len(shape) - 1, n)
    if len(shape) > 1:
        at = c.emit(T.ExpandOp.create_from([at], TensorType(IntegerType(64), [*shape[:-1], n])))
    count = _search_sorted(c, starts, at, right=True)
    return _op(c, T.SubOp, count.type, count, 1)


def _segment_fold(c: Converter, vals: SSAValue, d: int, seg: SSAValue, segments: int, kind: str) -> SSAValue:
    """`vals` reduced ("sum", "max", "min", "prod") along `d` into `segments` by their ids `seg`
    (i64, of vals' shape), the identity where a segment gets nothing: sum, max and min one
    `torch.scatter_reduce` (atomics, work in proportion to the values); prod on the box
    [.., s, k, ..] of hit = seg_k == s, where(hit, vals_k, 1) multiplied over k."""
    vt = vals.type
    assert isinstance(vt, TensorType)
    elem, shape = vt.element_type, list(vt.get_shape())
    shape[d] = segments
    t = TensorType(elem, shape)
    identity = 0 if kind == "sum" else _identity_of(elem, kind)
    if kind != "prod":
        reduce = StringAttr({"sum": "sum", "max": "amax", "min": "amin"}[kind])
        return c.emit(T.ScatterReduceOp.create_from([c.constant(identity, elem, shape), seg, vals], t,
                                                    {"dim": IntAttr(d), "reduce": reduce}))  # fmt: skip
    hit, box = _scatter_hits(c, seg, d, segments)
    terms = _scalar_where(c, hit, _unsqueezed(c, vals, d), c.constant(identity, elem), TensorType(elem, box))
    return c.emit(T.ProdOp(terms, [d + 1], False, t))


@handles("bucketize", to="torch.lt, torch.le, torch.sum, torch.sub")
def _bucketize(c: Converter, node, x, boundaries, *, out_int32=False, right=False):
    """The bucket of each x among the sorted 1-d `boundaries`: how many lie below it (at or
    below with right=True)."""
    t = c.out_type()
    elem = _common_elem(c, x, boundaries)
    pos = _positions_in(c, c.cast(c.value(boundaries), elem), c.cast(c.value(x), elem), bool(right))
    return c.cast(pos, t.element_type)


@handles("searchsorted", to="torch.lt, torch.le, torch.sum, torch.sub")
def _searchsorted(c: Converter, node, seq, values, *, out_int32=False, right=False, side=None, sorter=None):
    """Insertion positions of `values` in `seq`, sorted along its last dim (1-d, or rows whose
    leading dims are the values'): how many lie below each (at or below on the right side)."""
    if sorter is not None:
        raise c.fail("unsupported searchsorted with a sorter")
    if not isinstance(values, fx.Node):
        raise c.fail("unsupported searchsorted of a Python scalar")
    t = c.out_type()
    elem = _common_elem(c, seq, values)
    pos = _positions_in(c, c.cast(c.value(seq), elem), c.cast(c.value(values), elem), bool(right) or side == "right")
    return c.cast(pos, t.element_type)


@handles("histc", to="torch.reshape, torch.sub, torch.mul, torch.div, torch.ge, torch.le, torch.logical_and, torch.where, torch.to_dtype, torch.minimum, torch.eq, torch.sum, torch.amin, torch.amax, torch.add")
def _histc(c: Converter, node, x, bins=100, min=0, max=0):
    """Counts (as floats) of x's elements in `bins` equal bins over [min, max], PyTorch's linear bins.

    An element's bin is int((x - min) * bins / (max - min)), in that order as ATen computes it,
    max in the last bin; elements outside [min, max] and NaN count nowhere. Every element is
    compared with every bin (`_scatter_hits`: N x bins). min == max (the default 0, 0) takes the
    range from the data, its extremes, widened by 1 each way where they are equal, as ATen does
    (a NaN or infinite extreme, which ATen refuses at run time, counts nothing here)."""
    t = c.out_type()
    elem, n = t.element_type, math.prod(c.shape(x))
    flat = TensorType(elem, [n])
    scalar = TensorType(elem, [])
    v = c.emit(T.ReshapeOp.create_from([c.cast(c.value(x), elem)], flat))
    if float(min) != float(max):
        lo, hi = c.constant(float(min), elem), c.constant(float(max), elem)
    elif n == 0:
        lo, hi = c.constant(float(min) - 1, elem), c.constant(float(max) + 1, elem)
    else:
        lo, hi = c.emit(T.AminOp(v, [0], False, scalar)), c.emit(T.AmaxOp(v, [0], False, scalar))
        same = _op(c, T.EqOp, _bool_type(scalar), lo, hi)
        lo = _scalar_where(c, same, _op(c, T.SubOp, scalar, lo, 1.0), lo, scalar)
        hi = _scalar_where(c, same, _op(c, T.AddOp, scalar, hi, 1.0), hi, scalar)
    width = _op(c, T.SubOp, TensorType(elem, []), hi, lo)
    pos = _op(c, T.DivOp, flat, _op(c, T.MulOp, flat, _op(c, T.SubOp, flat, v, lo), float(bins)), width)
    inside = _op(c, T.LogicalAndOp, _bool_type(flat), _op(c, T.GeOp, _bool_type(flat), v, lo),
                 _op(c, T.LeOp, _bool_type(flat), v, hi))  # fmt: skip
    pos = _scalar_where(c, inside, pos, c.constant(-1.0, elem), flat)  # no bin (and no NaN to cast)
    idx = c.cast(pos, IntegerType(64))  # truncates: the bin's floor
    idx = _op(c, T.MinimumOp, idx.type, idx, int(bins) - 1)  # type: ignore[arg-type]
    hit, box = _scatter_hits(c, idx, 0, int(bins))
    ones = _scalar_where(c, hit, c.constant(1.0, elem), c.constant(0.0, elem), TensorType(elem, box))
    return c.emit(T.SumOp(ones, [1], False, t))


@handles("histogram.bin_ct", "histogram.bins_tensor", to="torch.reshape, torch.amin, torch.amax, torch.eq, torch.sub, torch.add, torch.div, torch.mul, torch.lt, torch.where, torch.slice, torch.ge, torch.le, torch.logical_and, torch.minimum, torch.embedding, torch.scatter_reduce, torch.sum")
def _histogram(c: Converter, node, x, bins=100, *, range=None, weight=None, density=False):
    """(hist, bin_edges): the count (or the sum of `weight`) of x's elements in each bin, its
    density with density=True; `bins` equal bins over `range` (else the data's extremes) or
    the edges given.

    An element's bin is the count of edges at or below it, less one (`_search_sorted`, which
    ATen's linear guess and local search make exact), the last bin holding the rightmost edge;
    elements outside the edges and NaN count nowhere. Counts are scattered (`_segment_fold`:
    work in proportion to the elements). Equal extremes are widened by 0.5 each way, as ATen
    does (a NaN or infinite extreme, which ATen refuses at run time, counts nothing here)."""
    t = c.out_type(0)
    elem, n = t.element_type, math.prod(c.shape(x))
    flat = TensorType(elem, [n])
    v = c.emit(T.ReshapeOp.create_from([c.cast(c.value(x), elem)], flat))
    if isinstance(bins, fx.Node):
        edges, count = c.cast(c.value(bins), elem), c.shape(bins)[0] - 1
    else:
        edges, count = _linear_edges(c, v, int(bins), range), int(bins)  # `range`: histogram's argument
    lo, hi = _slice_value(c, edges, 0, 0, 1), _slice_value(c, edges, 0, count, count + 1)
    boolean = TensorType(IntegerType(1), [n])
    inside = _op(c, T.LogicalAndOp, boolean, _op(c, T.GeOp, boolean, v, lo), _op(c, T.LeOp, boolean, v, hi))
    at = TensorType(IntegerType(64), [n])
    pos = _op(c, T.MinimumOp, at, _op(c, T.SubOp, at, _search_sorted(c, edges, v, right=True), 1), count - 1)
    pos = _scalar_where(c, inside, pos, c.constant(count, IntegerType(64)), at)  # outside: a spare bin
    w = c.constant(1.0, elem, [n]) if weight is None else _reshaped(c, c.cast(c.value(weight), elem), [n])
    hist = _slice_value(c, _segment_fold(c, w, 0, pos, count + 1, "sum"), 0, 0, count)
    if density:  # as ATen: over the total, then over each bin's width
        hist = _op(c, T.DivOp, t, hist, c.emit(T.SumOp(hist, [0], False, TensorType(elem, []))))
        widths = _op(c, T.SubOp, t, _slice_value(c, edges, 0, 1, count + 1), _slice_value(c, edges, 0, 0, count))
        hist = _op(c, T.DivOp, t, hist, widths)
    return [hist, edges]


def _linear_edges(c: Converter, v: SSAValue, bins: int, span) -> SSAValue:
    """The bins + 1 edges of equal bins over `span` (torch.linspace at capture, in v's dtype),
    or over v's extremes: linspace's own arithmetic, from the start below the middle and from the
    end above it (ATen's vectorised linspace may round an inner edge an ulp apart)."""
    vt = v.type
    assert isinstance(vt, TensorType)
    elem = vt.element_type
    scalar, t = TensorType(elem, []), TensorType(elem, [bins + 1])
    if span is not None:
        lo, hi = float(span[0]), float(span[1])
        if lo == hi:
            lo, hi = lo - 0.5, hi + 0.5
        return c.constant(torch.linspace(lo, hi, bins + 1, dtype=torch_dtype(elem)).tolist(), elem, [bins + 1])
    lo, hi = c.emit(T.AminOp(v, [0], False, scalar)), c.emit(T.AmaxOp(v, [0], False, scalar))
    same = _op(c, T.EqOp, _bool_type(scalar), lo, hi)
    lo = _scalar_where(c, same, _op(c, T.SubOp, scalar, lo, 0.5), lo, scalar)
    hi = _scalar_where(c, same, _op(c, T.AddOp, scalar, hi, 0.5), hi, scalar)
    step = _op(c, T.DivOp, scalar, _op(c, T.SubOp, scalar, hi, lo), float(bins))
    i = c.cast(_iota(c, 1, 0, bins + 1), elem)
    up = _op(c, T.AddOp, t, lo, _op(c, T.MulOp, t, step, i))
    down = _op(c, T.SubOp, t, hi, _op(c, T.MulOp, t, step, _op(c, T.SubOp, t, c.constant(float(bins), elem), i)))
    below = _op(c, T.LtOp, _bool_type(t), i, float((bins + 1) // 2))
    return _scalar_where(c, below, up, down, t)


#: scatter_reduce's reductions: (the reduce op over the box's k, the identity where k misses p,
#: combining with the base where include_self).
_SCATTER_REDUCE = {
    "sum": (T.SumOp, 0.0, T.AddOp), "mean": (T.SumOp, 0.0, T.AddOp), "prod": (T.ProdOp, 1.0, T.MulOp),
    "amax": (T.AmaxOp, -math.inf, T.MaximumOp), "amin": (T.AminOp, math.inf, T.MinimumOp),
}  # fmt: skip


@handles("scatter_reduce", to="torch.scatter_reduce, torch.eq, torch.where, torch.sum, torch.prod, torch.amax, torch.amin, torch.div, torch.cat")
def _scatter_reduce(c: Converter, node, x, dim, index, src, reduce, *, include_self=True):
    """x with `src` reduced into it along `dim` at `index` (sum, prod, mean, amax, amin; with the
    base's own value where include_self): `_reduce_into`."""
    d = norm_dim(dim, c.rank(x))
    ishape = list(c.shape(index))
    vals = c.cast(c.value(src), c.out_type().element_type)
    for i, n in enumerate(ishape):
        vals = _slice_value(c, vals, i, 0, n)
    return _reduce_into(c, node, x, d, c.cast(c.value(index), IntegerType(64)), vals, reduce, include_self, "scatter_reduce")


@handles("index_reduce", to="torch.reshape, torch.expand, torch.scatter_reduce, torch.eq, torch.where, torch.sum, torch.prod, torch.div, torch.cat")
def _index_reduce(c: Converter, node, x, dim, index, source, reduce, *, include_self=True):
    """x with `source`'s slices along `dim` reduced into the positions a 1-d `index` names
    (prod, mean, amax, amin; with the base's own value where include_self): the index laid
    along `dim` and expanded over source, then `_reduce_into`."""
    d = norm_dim(dim, c.rank(x))
    sshape = list(c.shape(source))
    laid = [1] * len(sshape)
    laid[d] = sshape[d]
    idx = c.emit(T.ReshapeOp.create_from([c.cast(c.value(index), IntegerType(64))], TensorType(IntegerType(64), laid)))
    if laid != sshape:
        idx = c.emit(T.ExpandOp.create_from([idx], TensorType(IntegerType(64), sshape)))
    vals = c.cast(c.value(source), c.out_type().element_type)
    return _reduce_into(c, node, x, d, idx, vals, reduce, include_self, "index_reduce")


@handles("segment_reduce", to="torch.cumsum, torch.sub, torch.slice, torch.add, torch.minimum, torch.le, torch.logical_and, torch.where, torch.reshape, torch.expand, torch.scatter_reduce, torch.eq, torch.prod, torch.mul, torch.maximum, torch.div, torch.gt, torch.to_dtype")
def _segment_reduce(c: Converter, node, data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                    unsafe=False, initial=None):  # fmt: skip
    """Reductions (sum, mean, max, min, prod) of `data`'s consecutive segments along `axis`, of
    run-time `lengths` or between `offsets` (rows of their own where they have leading dims):
    each element's segment by a binary search of the starts (`_segment_ids`), folded into it
    (`_segment_fold`). An empty segment is `initial` or the reduction's identity (a mean's NaN);
    `initial` also joins every other segment (a mean's sum, over the segment's length)."""
    t = c.out_type()
    elem, shape = t.element_type, list(t.get_shape())
    d = norm_dim(axis, c.rank(data))
    i64 = IntegerType(64)
    if lengths is not None:
        size = c.cast(c.value(lengths), i64)
        starts = c.emit(T.SubOp.create_from([_blocked_cumsum(c, size, d), size], size.type))
    else:
        off = c.cast(c.value(offsets), i64)
        starts = _slice_value(c, off, d, 0, shape[d])
        size = c.emit(T.SubOp.create_from([_slice_value(c, off, d, 1, shape[d] + 1), starts], starts.type))
    dshape = list(c.shape(data))
    seg = _segment_ids(c, starts, dshape[d])  # [.., n] over data's dims before the axis
    seg = _reshaped(c, seg, [*dshape[: d + 1], *[1] * (len(dshape) - d - 1)])
    if list(seg.type.get_shape()) != dshape:  # type: ignore[attr-defined]
        seg = c.emit(T.ExpandOp.create_from([seg], TensorType(i64, dshape)))
    kind = "sum" if reduce == "mean" else reduce
    out = _segment_fold(c, c.cast(c.value(data), elem), d, seg, shape[d], kind)
    size = _reshaped(c, c.cast(size, elem), [*shape[: d + 1], *[1] * (len(shape) - d - 1)])
    if initial is not None:
        out = _op(c, {"sum": T.AddOp, "prod": T.MulOp, "max": T.MaximumOp, "min": T.MinimumOp}[kind], t, out, float(initial))
    if reduce == "mean":
        out = c.emit(T.DivOp.create_from([out, size], t))
    if initial is not None:
        filled = _op(c, T.GtOp, _bool_type(size.type), size, 0.0)  # type: ignore[arg-type]
        out = _scalar_where(c, filled, out, c.constant(float(initial), elem), t)
    return out


def _reduce_into(c: Converter, node, x, d: int, idx: SSAValue, vals: SSAValue, reduce: str, include_self, what: str):
    """x with `vals` reduced into it along `d` at `idx` (i64, of vals' shape): the reduction (a
    mean's sum) and the count of hits are `torch.scatter_reduce`s from the identity (atomics;
    amax / amin with include_self one `torch.scatter_reduce` into x, which needs no count);
    prod, on the box [.., p, k, ..] of hit = idx_k == p, where(hit, vals_k, 1) multiplied over
    k. Positions no k hits keep x's value; a float mean divides by the count of hits (plus one
    with include_self)."""
    t = c.out_type()
    if reduce not in _SCATTER_REDUCE:
        raise c.fail(f"unsupported {what} with reduce='{reduce}'")
    if _is_int(t.element_type) and reduce == "mean":
        raise c.fail(f"unsupported {what} with reduce='mean' on integers (it floors)")
    red_cls, identity, combine = _SCATTER_REDUCE[reduce]
    elem = t.element_type
    if _is_int(elem) and math.isinf(identity):  # the integer type's own extreme
        info = torch.iinfo(node.meta["val"].dtype)
        identity = info.min if identity < 0 else info.max
    shape = list(c.shape(x))
    ishape = list(idx.type.get_shape())  # type: ignore[attr-defined]
    rank, n = len(shape), shape[d]
    along = list(ishape)
    along[d] = n
    if reduce != "prod":  # scatters (atomics): work in proportion to the sources
        full, at = TensorType(elem, shape), {"dim": IntAttr(d)}
        kind = StringAttr("sum" if reduce == "mean" else reduce)
        if include_self and reduce in ("amax", "amin"):  # x itself where nothing hits: no count
            return c.emit(T.ScatterReduceOp.create_from([c.cast(c.value(x), elem), idx, vals], full, {**at, "reduce": kind}))
        red = c.emit(T.ScatterReduceOp.create_from([c.constant(identity, elem, shape), idx, vals], full, {**at, "reduce": kind}))
        ones = c.constant(1.0, elem, ishape)
        count = c.emit(T.ScatterReduceOp.create_from([c.constant(0.0, elem, shape), idx, ones], full, {**at, "reduce": StringAttr("sum")}))
    else:
        hit, box = _scatter_hits(c, idx, d, n)
        terms = _scalar_where(c, hit, _unsqueezed(c, vals, d), c.constant(identity, elem), TensorType(elem, box))
        red = c.emit(red_cls(terms, [d + 1], False, TensorType(elem, along)))
        ones = _scalar_where(c, hit, c.constant(1.0, elem), c.constant(0.0, elem), TensorType(elem, box))
        count = c.emit(T.SumOp(ones, [d + 1], False, TensorType(elem, along)))
        for i in range(rank):
            red = _pad_dim(c, red, i, 0, shape[i] - along[i], identity)
            count = _pad_dim(c, count, i, 0, shape[i] - along[i], 0)
    base = c.cast(c.value(x), elem)
    if include_self:
        out = c.emit(combine.create_from([base, red], t))
        if reduce == "mean":
            one = c.emit(T.AddOp.create_from([count, c.constant(1.0, elem)], t))
            out = c.emit(T.DivOp.create_from([out, one], t))
    else:
        out = red
        if reduce == "mean":
            out = c.emit(T.DivOp.create_from([red, c.emit(T.MaximumOp.create_from([count, c.constant(1.0, elem)], t))], t))
    hits = c.emit(T.GtOp.create_from([count, c.constant(0.0, elem)], _bool_type(t)))
    return _scalar_where(c, hits, out, base, t)


@handles("put", to="torch.reshape, torch.lt, torch.add, torch.where, torch.scatter_reduce, torch.expand, torch.ge, torch.maximum, torch.embedding")
def _put(c: Converter, node, x, index, source, accumulate=False):
    """x with `source`'s elements written (added with accumulate) at the flat positions
    `index` names (negative ones from the end): `_scatter_into` on x flattened."""
    t = c.out_type()
    elem, n, k = t.element_type, math.prod(c.shape(x)), math.prod(c.shape(index))
    i64 = IntegerType(64)
    flat = c.emit(T.ReshapeOp.create_from([c.cast(c.value(x), elem)], TensorType(elem, [n])))
    idx = c.emit(T.ReshapeOp.create_from([c.cast(c.value(index), i64)], TensorType(i64, [k])))
    negative = _op(c, T.LtOp, TensorType(IntegerType(1), [k]), idx, 0)
    idx = _scalar_where(c, negative, _op(c, T.AddOp, idx.type, idx, n), idx, idx.type)  # type: ignore[arg-type]
    vals = c.emit(T.ReshapeOp.create_from([c.cast(c.value(source), elem)], TensorType(elem, [k])))
    out = _scatter_into(c, flat, 0, idx, vals, bool(accumulate))
    return c.emit(T.ReshapeOp.create_from([out], t))


@handles("scatter", "scatter_add", to="torch.scatter_reduce, torch.iota, torch.expand, torch.ge, torch.maximum, torch.embedding, torch.where, torch.cat")
def _scatter(c: Converter, node, *args, **kwargs):
    """x with `src` (or `value`) written along `dim` at `index` (`_scatter_into`): scatter_add
    and reduce='add' add, the others take the last writer among duplicate indices."""
    a = bound_args(node)
    name = node.target._schema.name  # type: ignore[union-attr]
    reduce = "add" if name.endswith("scatter_add") else a.get("reduce")
    if reduce not in (None, "add"):
        raise c.fail(f"unsupported scatter with reduce='{reduce}'")
    x, index = a["self"], a["index"]
    t = c.out_type()
    d = norm_dim(a["dim"], c.rank(x))
    ishape = c.shape(index)
    idx = c.cast(c.value(index), IntegerType(64))
    if "src" in a and isinstance(a["src"], fx.Node):
        vals = c.cast(c.value(a["src"]), t.element_type)
        for i, n in enumerate(ishape):
            vals = _slice_value(c, vals, i, 0, n)
    else:
        vals = c.constant(a["value"], t.element_type, ishape)
    base = c.cast(c.value(x), t.element_type)
    return _scatter_into(c, base, d, idx, vals, reduce == "add")


@handles("index_put", to="torch.scatter_reduce, torch.iota, torch.expand, torch.ge, torch.maximum, torch.embedding, torch.where, torch.add, torch.reshape")
def _index_put(c: Converter, node, x, indices, values, accumulate=False):
    """x[indices] = values (+= with accumulate): integer index tensors on adjacent dims (as
    `index`, of several dims too) flattened into one, and `_scatter_into` along it; index_add
    and index_copy come here through PyTorch's decomposition. Duplicate indices without
    accumulate: the last."""
    t = c.out_type()
    masks = [(i, ix) for i, ix in enumerate(indices) if ix is not None and ix.meta["val"].dtype == torch.bool]
    if masks and len(indices) == 1 + (masks[0][0]) and math.prod(c.shape(values)) == 1:
        return _masked_put(c, x, *masks[0], values, bool(accumulate))
    dims, pos = _index_positions(c, x, indices, "index_put")
    base = _flatten_dims(c, c.cast(c.value(x), t.element_type), dims)
    flat = list(base.type.get_shape())  # type: ignore[attr-defined]
    length = pos.type.get_shape()[0]  # type: ignore[attr-defined]
    d = dims[0]
    written = TensorType(t.element_type, [*flat[:d], length, *flat[d + 1 :]])  # x[indices]'s shape
    vals = c.cast(c.value(values, t.element_type), t.element_type)
    bshape = _index_shape(c, indices)
    full = TensorType(t.element_type, [*flat[:d], *bshape, *flat[d + 1 :]])  # with the index tensors' dims
    if vals.type != full:
        vals = c.emit(T.ExpandOp.create_from([vals], full))
    if full != written:
        vals = c.emit(T.ReshapeOp.create_from([vals], written))
    idx_shape = [1] * len(flat)
    idx_shape[d] = length
    idx = c.emit(T.ReshapeOp.create_from([pos], TensorType(IntegerType(64), idx_shape)))
    out = _scatter_into(c, base, d, idx, vals, bool(accumulate))
    return out if out.type == t else c.emit(T.ReshapeOp.create_from([out], t))


def _masked_put(c: Converter, x, d: int, mask, value, accumulate: bool) -> SSAValue:
    """x[mask] = value (+= with accumulate) for a bool mask over dims d.. and one value: where(mask,
    value (x + value), x)."""
    t = c.out_type()
    shape, mshape = c.shape(x), c.shape(mask)
    m = c.value(mask)
    laid = [1] * d + list(mshape) + [1] * (len(shape) - d - len(mshape))
    if laid != list(mshape):
        m = c.emit(T.ReshapeOp.create_from([m], TensorType(IntegerType(1), laid)))
    base = c.cast(c.value(x), t.element_type)
    v = c.cast(c.value(value, t.element_type), t.element_type)
    if v.type.get_shape():  # type: ignore[attr-defined]
        v = c.emit(T.ReshapeOp.create_from([v], TensorType(t.element_type, [])))
    if accumulate:
        v = c.emit(T.AddOp.create_from([base, v], t))
    return _scalar_where(c, m, v, base, t)


@handles("index_fill.int_Scalar", "index_fill.int_Tensor", to="torch.lt, torch.add, torch.where, torch.eq, torch.any, torch.reshape")
def _index_fill(c: Converter, node, x, dim, index, value):
    """x with the slices along `dim` that `index` names (from the end where negative) set to
    `value` (a number or a 0-d tensor): each position along dim hit by any index (a compare of
    the dim's positions with the indices). A constant index comes as index_put instead."""
    t = c.out_type()
    rank, i64 = len(t.get_shape()), IntegerType(64)
    d = norm_dim(dim, rank)
    n = t.get_shape()[d]
    count = math.prod(c.shape(index))
    idx = _reshaped(c, c.cast(c.value(index), i64), [1, count])
    wrapped = _op(c, T.AddOp, idx.type, idx, n)  # type: ignore[arg-type]
    idx = _scalar_where(c, _op(c, T.LtOp, _bool_type(idx.type), idx, 0), wrapped, idx, idx.type)  # type: ignore[arg-type]
    box = TensorType(IntegerType(1), [n, count])
    hit = c.emit(T.EqOp.create_from([_iota(c, 2, 0, n), idx], box))
    laid = [1] * rank
    laid[d] = n
    mask = c.emit(T.AnyOp(hit, [1], False, TensorType(IntegerType(1), [n])))
    mask = _reshaped(c, mask, laid)
    v = c.cast(c.value(value, t.element_type), t.element_type)
    if v.type.get_shape():  # type: ignore[attr-defined]
        v = _reshaped(c, v, [])
    return _scalar_where(c, mask, v, c.cast(c.value(x), t.element_type), t)


@handles("copy", to="torch.expand, torch.to_dtype")
def _copy(c: Converter, node, x, src, non_blocking=False):
    """The values of `src`, broadcast to x's shape in x's dtype."""
    t = c.out_type()
    v = c.cast(c.value(src), t.element_type)
    return v if v.type == t else c.emit(T.ExpandOp.create_from([v], t))


def _scatter_along(c: Converter, x, src: SSAValue, dim: int, start: int, end: int) -> SSAValue:
    """x with [start, end) along `dim` replaced by `src` (slices of x around it, concatenated)."""
    t = c.out_type()
    v = c.value(x)
    size = c.shape(x)[dim]
    parts = []
    if start > 0:
        parts.append(_slice_value(c, v, dim, 0, start))
    parts.append(c.cast(src, t.element_type))
    if end < size:
        parts.append(_slice_value(c, v, dim, end, size))
    return parts[0] if len(parts) == 1 else c.emit(T.CatOp.create_from(parts, t, {"dim": IntAttr(dim)}))


@handles("slice_scatter", to="torch.slice, torch.cat, torch.index_select, torch.where")
def _slice_scatter(c: Converter, node, x, src, dim=0, start=None, end=None, step=1):
    """x with the slice start:end:step along `dim` replaced by `src`.

    Bounds as Python's (negative from the end, clamped; None the whole dim). Step 1: slices of
    x around src, concatenated (`_scatter_along`). A larger step: where(p in the slice, s, x)
    along the dim, s src's element (p - start) / step there (a pick of constant positions)."""
    d = norm_dim(dim, c.rank(x))
    size = c.shape(x)[d]
    lo = 0 if start is None else max(0, min(size, start + size if start < 0 else start))
    hi = size if end is None else max(lo, min(size, end + size if end < 0 else end))
    if step == 1:
        return _scatter_along(c, x, c.value(src), d, lo, hi)
    t = c.out_type()
    v = c.cast(c.value(x), t.element_type)
    count = c.shape(src)[d]
    if count == 0:
        return v
    hit = [lo <= p < hi and (p - lo) % step == 0 for p in range(size)]
    at = [min(max(p - lo, 0) // step, count - 1) for p in range(size)]
    s = _pick(c, c.cast(c.value(src), t.element_type), d, at, f"{node.name}_at")
    return _scalar_where(c, _along(c, v, d, hit, IntegerType(1), f"{node.name}_hit"), s, v, t)


@handles("select_scatter", to="torch.unsqueeze, torch.slice, torch.cat")
def _select_scatter(c: Converter, node, x, src, dim, index):
    """x with one index along `dim` replaced by `src`."""
    d = norm_dim(dim, c.rank(x))
    i = norm_dim(index, c.shape(x)[d])
    return _scatter_along(c, x, _unsqueezed(c, c.value(src), d), d, i, i + 1)


# ----------------------------------------------------------------------------- sliding windows


def _per_dim(value, rank: int) -> list[int]:
    """An int or a list of ints as one int per spatial dim (PyTorch's `_ntuple`)."""
    if isinstance(value, int):
        return [value] * rank
    value = list(value)
    return value * rank if len(value) == 1 else value


def _as_batch(c: Converter, x, t: TensorType, rank: int) -> tuple[SSAValue, TensorType, Callable[[SSAValue], SSAValue]]:
    """The input value of a window op over `rank` spatial dims ([N, C, *S]), its result type
    `t`, and what makes the op's result `t`: PyTorch takes an unbatched input [C, *S] as a
    batch of one, which is added here and dropped after. Any other rank is refused."""
    v, shape = c.value(x), list(c.shape(x))
    if len(shape) == rank + 2:
        return v, t, lambda out: out
    if len(shape) != rank + 1:
        raise c.fail(f"unsupported input of shape {shape} for a window op over {rank} spatial dims")
    v = c.emit(T.ReshapeOp.create_from([v], TensorType(v.type.element_type, [1, *shape])))  # type: ignore[attr-defined]
    batched = TensorType(t.element_type, [1, *t.get_shape()])
    return v, batched, lambda out: c.emit(T.ReshapeOp.create_from([out], t))


def _window_props(c: Converter, rank: int, stride, padding, dilation, kernel=None) -> dict:
    props = {
        "stride": _dims_attr(_per_dim(stride, rank)),
        "padding": _dims_attr(_per_dim(padding, rank)),
        "dilation": _dims_attr(_per_dim(dilation, rank)),
    }
    if kernel is not None:
        props["kernel"] = _dims_attr(_per_dim(kernel, rank))
    return props


@handles("conv1d", "conv2d", "conv3d", "convolution", to="torch.convolution")
def _conv(c: Converter, node, *args, **kwargs):
    """Stride, zero padding (ints or 'valid' / 'same'), dilation, groups; transposed too."""
    a = bound_args(node)
    if a.get("transposed"):
        return _conv_transpose(c, a)
    x, w = a["input"], a["weight"]
    rank = len(c.shape(w)) - 2
    v, t, finish = _as_batch(c, x, c.out_type(), rank)
    padding = a.get("padding", 0)
    if padding == "valid":
        padding = 0
    elif padding == "same":
        totals = [dl * (k - 1) for dl, k in zip(_per_dim(a.get("dilation", 1), rank), c.shape(w)[2:])]
        if any(n % 2 for n in totals):
            raise c.fail("unsupported padding='same' that pads unevenly (an even kernel)")
        padding = [n // 2 for n in totals]
    props = _window_props(c, rank, a.get("stride", 1), padding, a.get("dilation", 1))
    props["groups"] = IntAttr(int(a.get("groups", 1)))
    bias = a.get("bias")
    operands = [v, c.value(w)] + ([c.value(bias)] if bias is not None else [])
    return finish(c.emit(T.ConvolutionOp.create_from(operands, t, props)))


@handles("conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
         to="torch.cat, torch.reshape, torch.slice, torch.flip, torch.permute, torch.convolution, torch.expand")
def _conv_transposed(c: Converter, node, *args, **kwargs):
    """Transposed convolution (stride, padding, output_padding, groups, dilation) as the
    convolution it is the gradient of, with the weight flipped and its in / out channels
    swapped, stride 1: undilated, over all output phases at once (`_conv_transpose_phases`);
    dilated, of the input with zeros between its elements, padded."""
    return _conv_transpose(c, bound_args(node))


def _conv_transpose(c: Converter, a: dict) -> SSAValue:
    x, w = a["input"], a["weight"]
    wshape = c.shape(w)
    rank, groups = len(wshape) - 2, int(a.get("groups", 1))
    v, t, finish = _as_batch(c, x, c.out_type(), rank)
    stride, padding = _per_dim(a.get("stride", 1), rank), _per_dim(a.get("padding", 0), rank)
    dilation, extra = _per_dim(a.get("dilation", 1), rank), _per_dim(a.get("output_padding", 0), rank)
    v = c.cast(v, t.element_type)
    cin, cout_g, ks = wshape[0], wshape[1], list(wshape[2:])
    spatial = list(range(2, rank + 2))
    wv = c.emit(T.FlipOp.create_from([c.value(w)], c.value(w).type, {"dims": _dims_attr(spatial)}))
    grouped = [groups, cin // groups, cout_g, *ks]
    wv = c.emit(T.ReshapeOp.create_from([wv], TensorType(t.element_type, grouped)))
    wv = c.emit(T.PermuteOp.create_from([wv], TensorType(t.element_type, [groups, cout_g, cin // groups, *ks]),
                                        {"dims": _dims_attr([0, 2, 1, *range(3, rank + 3)])}))  # fmt: skip
    wv = c.emit(T.ReshapeOp.create_from([wv], TensorType(t.element_type, [groups * cout_g, cin // groups, *ks])))
    bias = c.value(a["bias"]) if a.get("bias") is not None else None
    if any(s > 1 for s in stride) and all(dl == 1 for dl in dilation):
        return finish(_conv_transpose_phases(c, v, wv, bias, t, stride, padding, groups))
    for i, s in enumerate(stride):
        v = _interleave_zeros(c, v, i + 2, s)
    for i, (k, p, dl, op) in enumerate(zip(ks, padding, dilation, extra)):
        lo = dl * (k - 1) - p
        v = _pad_dim(c, v, i + 2, lo, lo + op)
    props = _window_props(c, rank, 1, 0, dilation)
    props["groups"] = IntAttr(groups)
    return finish(c.emit(T.ConvolutionOp.create_from([v, wv] + ([bias] if bias is not None else []), t, props)))


def _conv_transpose_phases(c: Converter, x: SSAValue, wv: SSAValue, bias: SSAValue | None, t: TensorType,
                           stride: list[int], padding: list[int], groups: int) -> SSAValue:  # fmt: skip
    """An undilated transposed convolution with stride s as one stride-1 convolution with an
    output channel per (output phase, channel) (sub-pixel convolution). Along a dim of kernel K
    and padding p the outputs o = q s + r, phase r, take the taps k = (r + p) mod s + m s of
    x[q + (r + p) // s - m]; a window over the offsets every phase reads (at most
    ceil(K / s) + 1 wide) holds each phase's taps of the flipped weight `wv`, zeros elsewhere.
    The convolution's output [N, (phases, C), Q...], each phase ceil(O / s) long, is
    interleaved by a permutation (an index map its reader folds) and cropped to O. The
    zero-interleaved input does s^rank times the multiply-adds of the taps and is written to
    memory; this reads the input as it is. The phases' weight is rebuilt from the weight by a
    small kernel on each call (parameters may change between calls)."""
    rank, elem = len(stride), t.element_type
    out = list(t.get_shape())
    insize, ks = T.shape_of(x)[2:], T.shape_of(wv)[2:]
    q = [-(-o // s) for o, s in zip(out[2:], stride)]  # each phase's length, the longest
    # per dim and phase: the first tap of the unflipped weight, the tap count, the newest offset
    phases = [[((r + p) % s, len(range((r + p) % s, k, s)), (r + p) // s) for r in range(s)]
              for s, p, k in zip(stride, padding, ks)]  # fmt: skip
    lo = [max(m - 1 - e for _, m, e in ph) for ph in phases]  # the window's oldest offset, negated
    width = [lo_i + 1 + max(e for _, _, e in ph) for lo_i, ph in zip(lo, phases)]
    v, pads = x, []
    for i in range(rank):  # the convolution pads both ends alike; an explicit pad does the rest
        hi = q[i] + width[i] - 1 - insize[i] - lo[i]
        pads.append(max(0, min(lo[i], hi)))
        v = _pad_dim(c, v, i + 2, lo[i] - pads[-1], hi - pads[-1])
    cout, cin_g = T.shape_of(wv)[:2]
    cout_g = cout // groups
    subs = []
    for phase in itertools.product(*(range(s) for s in stride)):
        u = wv
        for i, r in enumerate(phase):
            first, taps, e = phases[i][r]
            if not taps:
                u = c.constant(0.0, elem, [*T.shape_of(u)[: i + 2], width[i], *T.shape_of(u)[i + 3 :]])
                continue
            start = ks[i] - 1 - first - (taps - 1) * stride[i]  # the taps in `wv`, flipped
            shape = list(T.shape_of(u))
            shape[i + 2] = taps
            u = _slice_op(c, u, T.shape_of(u), i + 2, start, start + (taps - 1) * stride[i] + 1, stride[i], TensorType(elem, shape))
            before = lo[i] + e - taps + 1  # window positions before this phase's oldest tap
            u = _pad_dim(c, u, i + 2, before, width[i] - taps - before)
        subs.append(u)
    n = len(subs)
    # the rows of group g, phase by phase, one after another: the convolution reads them as they lie
    rows = [_slice_value(c, u, 0, g * cout_g, (g + 1) * cout_g) for g in range(groups) for u in subs]
    w = rows[0] if len(rows) == 1 else c.emit(T.CatOp.create_from(rows, TensorType(elem, [groups * n * cout_g, cin_g, *width]), {"dim": IntAttr(0)}))
    operands = [v, w]
    if bias is not None:
        b = c.emit(T.ReshapeOp.create_from([bias], TensorType(elem, [groups, 1, cout_g])))
        b = c.emit(T.ExpandOp.create_from([b], TensorType(elem, [groups, n, cout_g])))
        operands.append(c.emit(T.ReshapeOp.create_from([b], TensorType(elem, [groups * n * cout_g]))))
    props = _window_props(c, rank, 1, pads, 1)
    props["groups"] = IntAttr(groups)
    v = c.emit(T.ConvolutionOp.create_from(operands, TensorType(elem, [out[0], groups * n * cout_g, *q]), props))
    # [N, (g, s..., C_g), Q...] -> [N, g, C_g, Q_1, s_1, Q_2, s_2, ...] -> [N, C, Q_1 s_1, ...]
    v = c.emit(T.ReshapeOp.create_from([v], TensorType(elem, [out[0], groups, *stride, cout_g, *q])))
    dims = [0, 1, rank + 2] + [d for i in range(rank) for d in (rank + 3 + i, 2 + i)]
    laid = [out[0], groups, cout_g] + [d for i in range(rank) for d in (q[i], stride[i])]
    v = c.emit(T.PermuteOp.create_from([v], TensorType(elem, laid), {"dims": _dims_attr(dims)}))
    v = c.emit(T.ReshapeOp.create_from([v], TensorType(elem, [*out[:2], *(a * b for a, b in zip(q, stride))])))
    for i in range(rank):
        v = _slice_value(c, v, i + 2, 0, out[i + 2])
    return v


def _interleave_zeros(c: Converter, v: SSAValue, dim: int, s: int) -> SSAValue:
    """`v` with s - 1 zeros between consecutive elements along `dim` (none after the last)."""
    if s == 1:
        return v
    t = v.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    n = shape[dim]
    col = [*shape[: dim + 1], 1, *shape[dim + 1 :]]
    v = c.emit(T.ReshapeOp.create_from([v], TensorType(t.element_type, col)))
    zeros = c.constant(0, t.element_type, [*shape[: dim + 1], s - 1, *shape[dim + 1 :]])
    wide = [*shape[: dim + 1], s, *shape[dim + 1 :]]
    v = c.emit(T.CatOp.create_from([v, zeros], TensorType(t.element_type, wide), {"dim": IntAttr(dim + 1)}))
    flat = [*shape[:dim], n * s, *shape[dim + 1 :]]
    v = c.emit(T.ReshapeOp.create_from([v], TensorType(t.element_type, flat)))
    return _slice_value(c, v, dim, 0, (n - 1) * s + 1)


@handles("max_pool1d", "max_pool2d", "max_pool3d", "max_pool2d_with_indices",
         "max_pool3d_with_indices", to="torch.max_pool, torch.cat, torch.index_select, torch.reshape, torch.permute, torch.argmax, torch.remainder, torch.div, torch.mul, torch.sub, torch.add")
def _max_pool(c: Converter, node, *args, **kwargs):
    """Kernel, stride (default: the kernel), padding, dilation; the indices where they are used
    (`_pool_indices`)."""
    a = bound_args(node)
    x = a["self"]
    rank = _pool_rank(node)
    t = c.out_type(0) if isinstance(node.meta["val"], (tuple, list)) else c.out_type()
    stride = a.get("stride") or a["kernel_size"]
    props = _window_props(c, rank, stride, a.get("padding", 0), a.get("dilation", 1), a["kernel_size"])
    v, batched, finish = _as_batch(c, x, t, rank)
    if a.get("ceil_mode"):  # the last windows hang over the input: extend it by the lowest value
        over = [o - f for o, f in zip(t.get_shape()[-rank:], _floor_sizes(c, x, props))]
        low = _int_min(t.element_type) if isinstance(t.element_type, IntegerType) else -math.inf
        for i, (o, s) in enumerate(zip(over, props["stride"].data)):
            v = _pad_dim(c, v, i + 2, 0, o * s.data, low)
    out = finish(c.emit(T.MaxPoolOp.create_from([v], batched, props)))
    if not isinstance(node.meta["val"], (tuple, list)):
        return out
    wanted = any(u.target is operator.getitem and u.args[1] == 1 for u in node.users)
    if wanted and batched is not t:
        raise c.fail("unsupported max pooling indices of an unbatched input")
    return [out, _pool_indices(c, x, props, list(t.get_shape()[2:])) if wanted else None]


@handles("max_unpool2d", "max_unpool3d", to="torch.reshape, torch.scatter_reduce, torch.iota, torch.expand, torch.ge, torch.maximum, torch.embedding, torch.where")
def _max_unpool(c: Converter, node, x, indices, output_size, *args):
    """Zeros of `output_size` per (n, c) plane with each of x's values at the flat position
    `indices` names (what max pooling's return_indices gives): `_scatter_into` along the
    flattened plane (a position written twice keeps the last, as PyTorch's CPU loop)."""
    t = c.out_type()
    shape, elem = list(c.shape(x)), t.element_type
    spatial = 3 if str(node.target).startswith("aten.max_unpool3d") else 2
    if len(shape) != spatial + 2:
        raise c.fail(f"unsupported max_unpool{spatial}d of a rank-{len(shape)} input (batched [N, C, ...] only)")
    n, ch, k, plane = shape[0], shape[1], math.prod(shape[2:]), math.prod(t.get_shape()[2:])
    vals = c.emit(T.ReshapeOp.create_from([c.cast(c.value(x), elem)], TensorType(elem, [n, ch, k])))
    i64 = IntegerType(64)
    idx = c.emit(T.ReshapeOp.create_from([c.cast(c.value(indices), i64)], TensorType(i64, [n, ch, k])))
    out = _scatter_into(c, c.constant(0.0, elem, [n, ch, plane]), 2, idx, vals, False)
    return c.emit(T.ReshapeOp.create_from([out], t))


def _pool_indices(c: Converter, x, props: dict, out: list[int]) -> SSAValue:
    """Max pooling's indices (i64, x's batch and channels by `out`): the flat position in its
    (n, c) plane of each window's first maximum, as PyTorch's return_indices gives them. Each
    spatial dim's windows picked from x padded with its lowest value, viewed as [.., o, k, ..];
    the window offsets moved last and flattened; argmax over them; offset k of window o is
    input position o * stride - padding + k * dilation."""
    v = c.value(x)
    t = v.type
    assert isinstance(t, TensorType)
    shape, elem, r = list(t.get_shape()), t.element_type, len(out)
    low = _int_min(elem) if isinstance(elem, IntegerType) else -math.inf
    ks, ss, ps = ([a.data for a in props[name].data] for name in ("kernel", "stride", "padding"))
    ds = [a.data for a in props["dilation"].data] if "dilation" in props else [1] * r
    for i in range(r):
        dim, n, o, k, st, p, dl = 2 + 2 * i, shape[2 + i], out[i], ks[i], ss[i], ps[i], ds[i]
        v = _pad_dim(c, v, dim, p, max(0, (o - 1) * st + (k - 1) * dl + 1 - p - n), low)
        v = _pick(c, v, dim, [w * st + j * dl for w in range(o) for j in range(k)], f"pool_window{i}")
        split = list(v.type.get_shape())  # type: ignore[attr-defined]
        split[dim : dim + 1] = [o, k]
        v = c.emit(T.ReshapeOp.create_from([v], TensorType(elem, split)))
    perm = [0, 1, *(2 + 2 * i for i in range(r)), *(3 + 2 * i for i in range(r))]
    v = c.emit(T.PermuteOp.create_from([v], TensorType(elem, [shape[0], shape[1], *out, *ks]), {"dims": _dims_attr(perm)}))
    v = c.emit(T.ReshapeOp.create_from([v], TensorType(elem, [shape[0], shape[1], *out, math.prod(ks)])))
    it = TensorType(IntegerType(64), [shape[0], shape[1], *out])
    rest = c.emit(T.ArgmaxOp.create_from([v], it, {"dims": _dims_attr([2 + r]), "keepdim": _bool(False)}))
    flat: SSAValue | None = None
    for i in reversed(range(r)):
        offset = _op(c, T.RemainderOp, it, rest, ks[i])
        rest = _op(c, T.DivOp, it, rest, ks[i])
        start = _op(c, T.SubOp, TensorType(IntegerType(64), [1] * (2 + i) + [out[i]] + [1] * (r - i - 1)),
                    _op(c, T.MulOp, _iota(c, 2 + r, 2 + i, out[i]).type, _iota(c, 2 + r, 2 + i, out[i]), ss[i]), ps[i])  # fmt: skip
        pos = _op(c, T.AddOp, it, start, _op(c, T.MulOp, it, offset, ds[i]))
        term = _op(c, T.MulOp, it, pos, math.prod(shape[3 + i :]))
        flat = term if flat is None else _op(c, T.AddOp, it, flat, term)
    assert flat is not None
    return flat


def _floor_sizes(c: Converter, x, props: dict) -> list[int]:
    """The window op's output sizes (floor mode) of `x`'s spatial dims under `props`."""
    rank = len(props["kernel"].data)
    return [T.window_out(n, k.data, s.data, p.data, dl.data) for n, k, s, p, dl in zip(
        c.shape(x)[-rank:], props["kernel"].data, props["stride"].data, props["padding"].data,
        props.get("dilation", _dims_attr([1] * rank)).data)]  # fmt: skip


def _int_min(elem: IntegerType) -> int:
    return -(1 << (elem.width.data - 1)) if elem.width.data > 1 else 0


def _check_ceil(c: Converter, x, props: dict, t: TensorType, ceil_mode) -> None:
    """ceil_mode is fine where ceil and floor give the same output size (the result type has
    ceil's size; the window op computes floor's). Max pooling extends its input instead."""
    if ceil_mode and _floor_sizes(c, x, props) != list(t.get_shape()[-len(props["kernel"].data):]):
        raise c.fail("unsupported ceil_mode avg pooling whose last window hangs over the input")


@handles("avg_pool1d", "avg_pool2d", "avg_pool3d", to="torch.avg_pool")
def _avg_pool(c: Converter, node, *args, **kwargs):
    """Kernel, stride, padding, count_include_pad, divisor_override."""
    a = bound_args(node)
    x = a["self"]
    rank = _pool_rank(node)
    t = c.out_type()
    stride = a.get("stride") or a["kernel_size"]
    props = _window_props(c, rank, stride, a.get("padding", 0), 1, a["kernel_size"])
    _check_ceil(c, x, props, t, a.get("ceil_mode"))
    props["count_include_pad"] = _bool(a.get("count_include_pad", True))
    props["divisor"] = IntAttr(int(a.get("divisor_override") or 0))
    v, batched, finish = _as_batch(c, x, t, rank)
    return finish(c.emit(T.AvgPoolOp.create_from([v], batched, props)))


@handles("adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
         "_adaptive_avg_pool2d", "_adaptive_avg_pool3d", to="torch.avg_pool")
def _adaptive_avg_pool(c: Converter, node, x, output_size):
    """Output sizes that divide the input's: an avg_pool with kernel = stride = in / out.

    Other sizes (windows of unequal length) are `_adaptive_pool`'s. An unbatched input as a
    batch of one (`_as_batch`)."""
    t = c.out_type()
    rank = _pool_rank(node)
    sizes, outs = c.shape(x)[-rank:], t.get_shape()[-rank:]
    if any(n % o for n, o in zip(sizes, outs)):
        return _adaptive_pool(c, node, x, t, "avg")
    kernel = [n // o for n, o in zip(sizes, outs)]
    props = _window_props(c, len(kernel), kernel, 0, 1, kernel)
    props["count_include_pad"] = _bool(True)
    props["divisor"] = IntAttr(0)
    v, batched, finish = _as_batch(c, x, t, rank)
    return finish(c.emit(T.AvgPoolOp.create_from([v], batched, props)))


def _pool_rank(node) -> int:
    """The spatial dims of a pooling op, from its name (`adaptive_max_pool2d` -> 2)."""
    return int(str(node.target).split("pool")[1][0])


@handles("adaptive_max_pool1d", "adaptive_max_pool2d", "adaptive_max_pool3d", to="torch.max_pool")
def _adaptive_max_pool(c: Converter, node, x, output_size):
    """Output sizes that divide the input's: a max_pool with kernel = stride = in / out.

    Other sizes are `_adaptive_pool`'s. Values only, not indices. An unbatched input as a batch
    of one (`_as_batch`)."""
    t = c.out_type(0) if isinstance(node.meta["val"], (tuple, list)) else c.out_type()
    rank = _pool_rank(node)
    sizes, outs = c.shape(x)[-rank:], t.get_shape()[-rank:]
    if any(n % o for n, o in zip(sizes, outs)):
        out = _adaptive_pool(c, node, x, t, "max")
        return [out, None] if isinstance(node.meta["val"], (tuple, list)) else out
    kernel = [n // o for n, o in zip(sizes, outs)]
    v, batched, finish = _as_batch(c, x, t, rank)
    out = finish(c.emit(T.MaxPoolOp.create_from([v], batched, _window_props(c, len(kernel), kernel, 0, 1, kernel))))
    return [out, None] if isinstance(node.meta["val"], (tuple, list)) else out


# ----------------------------------------------------------------------------- index tables
# Ops that read each output element from a few input elements chosen by position alone: the
# positions and weights are constants computed here (tables when large), the reads
# index_selects of them. Each output element reads O(1) inputs (a window's length for pools).


def _pick(c: Converter, v: SSAValue, dim: int, index: Sequence[int], name: str) -> SSAValue:
    """`v`'s slices along `dim` at the constant positions `index`."""
    t = v.type
    assert isinstance(t, TensorType)
    shape = list(t.get_shape())
    shape[dim] = len(index)
    idx = c.constant(list(index), IntegerType(64), (len(index),), name)
    return c.emit(T.IndexSelectOp.create_from([v, idx], TensorType(t.element_type, shape), {"dim": IntAttr(dim)}))


def _along(c: Converter, v: SSAValue, dim: int, values: Sequence, elem: Attribute, name: str) -> SSAValue:
    """A constant of `values` laid along `dim` of `v`'s rank (size 1 elsewhere)."""
    return _laid(c, len(v.type.get_shape()), dim, values, elem, name)  # type: ignore[union-attr]


def _source_scale(n_in: int, n_out: int, align_corners: bool, scale: float | None) -> float:
    """PyTorch's input positions per output position (area_pixel_compute_scale)."""
    if align_corners:
        return (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
    return 1.0 / scale if scale and scale > 0 else n_in / n_out


#: Taps = per tap, the input position and the weight of every output position.
Taps = tuple[list[list[int]], list[list[float]]]


def _linear_taps(n_in: int, n_out: int, align_corners: bool, scale: float | None) -> Taps | None:
    """PyTorch's linear interpolation along one dim (area_pixel_compute_source_index): two taps,
    or None where the dim is copied as it is."""
    if n_in == n_out and not align_corners and scale in (None, 1.0):
        return None
    s = _source_scale(n_in, n_out, align_corners, scale)
    taps: list[list[int]] = [[], []]
    weights: list[list[float]] = [[], []]
    for dst in range(n_out):
        src = s * dst if align_corners else max(s * (dst + 0.5) - 0.5, 0.0)
        i = int(src)
        lam = src - i
        taps[0].append(i)
        taps[1].append(i + 1 if i < n_in - 1 else i)
        weights[0].append(1.0 - lam)
        weights[1].append(lam)
    return taps, weights


#: PyTorch's cubic convolution coefficient (UpSample.h: A = -0.75).
CUBIC_A = -0.75


def _cubic(x: float, a: float) -> float:
    """The cubic convolution kernel with coefficient `a` at distance x (UpSample.h's
    cubic_convolution1 within 1, cubic_convolution2 within 2, else 0)."""
    x = abs(x)
    if x < 1.0:
        return ((a + 2) * x - (a + 3)) * x * x + 1
    if x < 2.0:
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return 0.0


def _cubic_taps(n_in: int, n_out: int, align_corners: bool, scale: float | None) -> Taps:
    """PyTorch's bicubic interpolation along one dim: four taps, floor(src) - 1 .. + 2 clamped
    to the input, with their cubic convolution weights."""
    s = _source_scale(n_in, n_out, align_corners, scale)
    taps: list[list[int]] = [[], [], [], []]
    weights: list[list[float]] = [[], [], [], []]
    for dst in range(n_out):
        src = s * dst if align_corners else s * (dst + 0.5) - 0.5  # (not clamped at 0: cubic)
        i = math.floor(src)
        u = src - i
        ws = [_cubic(d, CUBIC_A) for d in (u + 1, u, 1 - u, 2 - u)]
        for k in range(4):
            taps[k].append(min(max(i - 1 + k, 0), n_in - 1))
            weights[k].append(ws[k])
    return taps, weights


#: The cubic convolution coefficient of antialiased bicubic resizing (PIL's; PyTorch's too).
CUBIC_A_AA = -0.5


def _triangle(x: float) -> float:
    x = abs(x)
    return 1.0 - x if x < 1.0 else 0.0


def _cubic_aa(x: float) -> float:
    return _cubic(x, CUBIC_A_AA)


def _aa_taps(filt, interp_size: int):
    """Antialiased resizing along one dim as PyTorch (and PIL) does it: output i reads the inputs
    within support = interp_size / 2 (times the downscale s where s > 1) of its center s (i +
    0.5), weighted filt((j - center + 0.5) / max(s, 1)) and normalized to sum 1; outputs with
    fewer inputs than the widest pad with weight 0."""

    def taps(n_in: int, n_out: int, align_corners: bool, scale: float | None) -> Taps:
        s = _source_scale(n_in, n_out, align_corners, scale)
        support = interp_size / 2 * s if s >= 1.0 else interp_size / 2
        inv = 1.0 / s if s >= 1.0 else 1.0
        rows = []
        for i in range(n_out):
            center = s * (i + 0.5)
            lo = max(int(center - support + 0.5), 0)
            hi = min(int(center + support + 0.5), n_in)
            ws = [filt((j - center + 0.5) * inv) for j in range(lo, hi)]
            total = sum(ws)
            rows.append((lo, [w / total for w in ws] if total else ws))
        width = max(len(ws) for _, ws in rows)
        positions = [[min(lo + k, n_in - 1) for lo, _ in rows] for k in range(width)]
        weights = [[ws[k] if k < len(ws) else 0.0 for _, ws in rows] for k in range(width)]
        return positions, weights

    return taps


def _interpolate(c: Converter, node, x, taps_of) -> SSAValue:
    """Separable interpolation, dim by dim from the last: each output the weighted sum of the
    input positions `taps_of(n_in, n_out, align_corners, scale)` gives along that dim."""
    a = bound_args(node)
    t = c.out_type()
    sizes, outs = c.shape(x)[2:], t.get_shape()[2:]
    factors = _scale_factors(a, len(sizes))
    v = c.cast(c.value(x), t.element_type)
    for d in reversed(range(len(sizes))):
        found = taps_of(sizes[d], outs[d], bool(a.get("align_corners")), factors[d])
        if found is None:
            continue
        dim = d + 2
        out_t = TensorType(t.element_type, _resized(v, dim, outs[d]))
        acc = None
        for k, (positions, weights) in enumerate(zip(*found)):
            picked = _pick(c, v, dim, positions, f"{node.name}_at{d}_{k}")
            weight = _along(c, v, dim, weights, t.element_type, f"{node.name}_w{d}_{k}")
            term = c.emit(T.MulOp.create_from([picked, weight], out_t))
            acc = term if acc is None else c.emit(T.AddOp.create_from([acc, term], out_t))
        assert acc is not None
        v = acc
    return v


@handles("upsample_linear1d", "upsample_bilinear2d", "upsample_trilinear3d",
         to="torch.index_select, torch.mul, torch.add")
def _upsample_linear(c: Converter, node, x, *args, **kwargs):
    """Linear, bilinear, trilinear (align_corners either way): two reads a position along each
    dim, weighted as PyTorch weighs them (`_interpolate`)."""
    return _interpolate(c, node, x, _linear_taps)


@handles("upsample_bicubic2d", to="torch.index_select, torch.mul, torch.add")
def _upsample_bicubic(c: Converter, node, x, *args, **kwargs):
    """Bicubic (align_corners either way): four reads a position along each dim, weighted by
    PyTorch's cubic convolution (A = -0.75, edges clamped)."""
    return _interpolate(c, node, x, _cubic_taps)


@handles("_upsample_bilinear2d_aa", "_upsample_bicubic2d_aa", to="torch.index_select, torch.mul, torch.add")
def _upsample_aa(c: Converter, node, x, *args, **kwargs):
    """Antialiased bilinear / bicubic resizing (`antialias=True`, torchvision's Resize): on a
    downscale each output averages every input its stretched filter covers (a triangle, or a
    cubic with A = -0.5), `_aa_taps` per dim."""
    name = node.target._schema.name  # type: ignore[union-attr]
    taps = _aa_taps(_triangle, 2) if "bilinear" in name else _aa_taps(_cubic_aa, 4)
    return _interpolate(c, node, x, taps)


@handles("cdist", "_cdist_forward",
         to="torch.unsqueeze, torch.sub, torch.abs, torch.pow, torch.sum, torch.sqrt, torch.amax, torch.ne, torch.where")
def _cdist(c: Converter, node, x1, x2, p=2.0, compute_mode=None):
    """Distances between rows, as (x1 rows - x2 rows) broadcast and reduced over features:
    `_p_norms` (p = 2, 1, inf, 0 or any other p > 0). Each pair's difference is taken directly (PyTorch takes a matmul
    |a|^2 + |b|^2 - 2ab for larger inputs at p = 2, less accurately)."""
    t = c.out_type()
    s1, s2 = c.shape(x1), c.shape(x2)
    elem = t.element_type
    rows = [*t.get_shape(), s1[-1]]  # [.., P, R, M]
    a = c.emit(T.UnsqueezeOp.create_from(
        [c.value(x1)], TensorType(elem, [*s1[:-1], 1, s1[-1]]), {"dim": IntAttr(len(s1) - 1)}))  # fmt: skip
    b = c.emit(T.UnsqueezeOp.create_from(
        [c.value(x2)], TensorType(elem, [*s2[:-2], 1, *s2[-2:]]), {"dim": IntAttr(len(s2) - 2)}))  # fmt: skip
    diff = c.emit(T.SubOp.create_from([a, b], TensorType(elem, rows)))
    return _p_norms(c, diff, p, t, "cdist")


def _p_norms(c: Converter, diff: SSAValue, p: float, t: TensorType, what: str) -> SSAValue:
    """The p-norms of `diff` over its last dim, as `t`: p = 2 the root of the summed squares, 1
    the summed magnitudes, inf their maximum, 0 the count of nonzeros (NaN counts), else
    (sum |d|^p)^(1/p); p < 0 is refused (PyTorch refuses it too)."""
    if p < 0:
        raise c.fail(f"unsupported {what} with p = {p}")
    elem = t.element_type
    last = len(diff.type.get_shape()) - 1  # type: ignore[attr-defined]
    if p == 0:
        nonzero = c.emit(T.NeOp.create_from([diff, c.constant(0.0, elem)], _bool_type(diff.type)))  # type: ignore[arg-type]
        ones = _scalar_where(c, nonzero, c.constant(1.0, elem), c.constant(0.0, elem), diff.type)  # type: ignore[arg-type]
        return c.emit(T.SumOp(ones, [last], False, t))
    mag = c.emit(T.AbsOp.create_from([diff], diff.type))
    if p == math.inf:
        return c.emit(T.AmaxOp(mag, [last], False, t))
    if p == 2:
        sq = c.emit(T.MulOp.create_from([diff, diff], diff.type))
        return c.emit(T.SqrtOp.create_from([c.emit(T.SumOp(sq, [last], False, t))], t))
    if p == 1:
        return c.emit(T.SumOp(mag, [last], False, t))
    powered = c.emit(T.PowOp.create_from([mag, c.constant(float(p), elem)], mag.type))
    summed = c.emit(T.SumOp(powered, [last], False, t))
    return c.emit(T.PowOp.create_from([summed, c.constant(1.0 / p, elem)], t))


@handles("_pdist_forward", to="torch.index_select, torch.sub, torch.abs, torch.pow, torch.sum, torch.sqrt, torch.amax, torch.ne, torch.where")
def _pdist(c: Converter, node, x, p=2.0):
    """Distances between the rows i < j of a matrix, in PyTorch's order (i, then j), as `_cdist`'s.

    The two rows of each pair picked by constant positions (n(n - 1) / 2 of each), subtracted and
    reduced over features (`_p_norms`: p = 2, 1, inf, 0 or any other p > 0)."""
    t = c.out_type()
    n = c.shape(x)[0]
    if n < 2:
        raise c.fail(f"unsupported pdist of {n} row (no pairs: an empty result)")
    pairs = [(i, j) for i in range(n) for j in range(i + 1, n)]
    v = c.cast(c.value(x), t.element_type)
    first = _pick(c, v, 0, [i for i, _ in pairs], f"{node.name}_i")
    second = _pick(c, v, 0, [j for _, j in pairs], f"{node.name}_j")
    diff = c.emit(T.SubOp.create_from([first, second], first.type))
    return _p_norms(c, diff, p, t, "pdist")


def _resized(v: SSAValue, dim: int, n: int) -> list[int]:
    shape = list(v.type.get_shape())  # type: ignore[union-attr]
    shape[dim] = n
    return shape


def _windows(n_in: int, n_out: int) -> list[tuple[int, int]]:
    """PyTorch's adaptive pooling windows: [floor(i * in / out), ceil((i + 1) * in / out))."""
    return [(i * n_in // n_out, -(-(i + 1) * n_in // n_out)) for i in range(n_out)]


def _adaptive_pool(c: Converter, node, x, t: TensorType, reduce: str) -> SSAValue:
    """Adaptive average or max pooling of any output size, dim by dim: each window's k-th
    element (k below the longest window) picked, and summed where it is inside the window
    (then divided by its length) or taken the maximum of (positions past a window's end repeat
    its last). Over the trailing spatial dims, batched or not."""
    rank = _pool_rank(node)
    sizes, outs = c.shape(x)[-rank:], t.get_shape()[-rank:]
    v = c.value(x)
    bool_t = IntegerType(1)
    lead = c.rank(x) - rank
    for d in range(len(sizes)):
        wins = _windows(sizes[d], outs[d])
        dim = d + lead
        out_t = TensorType(t.element_type, _resized(v, dim, outs[d]))
        acc = None
        for k in range(max(e - s for s, e in wins)):
            part = _pick(c, v, dim, [min(s + k, e - 1) for s, e in wins], f"{node.name}_at{d}_{k}")
            if reduce == "max":
                acc = part if acc is None else c.emit(T.MaximumOp.create_from([acc, part], out_t))
                continue
            inside = [s + k < e for s, e in wins]
            if not all(inside):
                keep = _along(c, v, dim, inside, bool_t, f"{node.name}_in{d}_{k}")
                part = _scalar_where(c, keep, part, c.constant(0, t.element_type), out_t)
            acc = part if acc is None else c.emit(T.AddOp.create_from([acc, part], out_t))
        assert acc is not None
        if reduce == "avg":
            lengths = _along(c, v, dim, [e - s for s, e in wins], t.element_type, f"{node.name}_n{d}")
            acc = c.emit(T.DivOp.create_from([acc, lengths], out_t))
        v = acc
    return v


@handles("unfold", to="torch.index_select, torch.reshape, torch.permute")
def _unfold(c: Converter, node, x, dimension, size, step):
    """Windows of `size` every `step` along `dimension`, as a new last dim: the windows' positions
    picked (a constant table), viewed as [.., windows, size, ..], the size dim moved last."""
    t = c.out_type()
    r = c.rank(x)
    if r == 0:
        raise c.fail("unsupported unfold of a 0-d tensor")
    d = norm_dim(dimension, r)
    count = t.get_shape()[d]
    v = _pick(c, c.value(x), d, [w * step + k for w in range(count) for k in range(size)], f"{node.name}_at")
    shape = list(c.shape(x))
    split = [*shape[:d], count, size, *shape[d + 1 :]]
    v = c.emit(T.ReshapeOp.create_from([v], TensorType(t.element_type, split)))
    if d == r - 1:
        return v
    dims = [i for i in range(r + 1) if i != d + 1] + [d + 1]
    return c.emit(T.PermuteOp.create_from([v], t, {"dims": _dims_attr(dims)}))


def _strided_source(c: Converter, x, name: str) -> SSAValue:
    """x's elements as the storage a strided view reads (x must be a contiguous tensor of its
    own, as every value of an exported program but a view is: its storage offset is 0)."""
    val = x.meta.get("val") if isinstance(x, fx.Node) else None
    if not isinstance(val, torch.Tensor) or not val.is_contiguous() or val.storage_offset() != 0:
        raise c.fail(f"unsupported {name} of a non-contiguous tensor (a view of another's storage)")
    return c.value(x)


def _strided_positions(size: Sequence[int], stride: Sequence[int], offset: int) -> list[int]:
    """The flat positions of a strided view, in its row-major order."""
    pos = [offset]
    for n, s in zip(size, stride):
        pos = [p + i * s for p in pos for i in range(n)]
    return pos


@handles("as_strided", to="torch.as_strided")
def _as_strided(c: Converter, node, x, size, stride, storage_offset=None):
    """A view of x's row-major elements by sizes and strides: one `torch.as_strided`."""
    v = _strided_source(c, x, "as_strided")
    attrs = {"stride": ArrayAttr([IntAttr(s) for s in stride]), "offset": IntAttr(storage_offset or 0)}
    return c.emit(T.AsStridedOp.create_from([v], c.out_type(), attrs))


@handles("as_strided_scatter", to="torch.reshape, torch.scatter_reduce, torch.iota, torch.expand, torch.ge, torch.maximum, torch.embedding, torch.where")
def _as_strided_scatter(c: Converter, node, x, src, size, stride, storage_offset=None):
    """x with `src` written into the strided view (`Tensor.fill_diagonal_`'s form): src's
    elements scattered to the view's flat positions (a constant), as `put` does."""
    v = _strided_source(c, x, "as_strided_scatter")
    t = c.out_type()
    elem, n = t.element_type, math.prod(c.shape(x))
    pos = _strided_positions(size, stride, storage_offset or 0)
    if pos and max(pos) >= n:
        raise c.fail(f"as_strided_scatter reads element {max(pos)} of a tensor of {n}")
    flat = c.emit(T.ReshapeOp.create_from([c.cast(v, elem)], TensorType(elem, [n])))
    idx = c.constant(pos, IntegerType(64), (len(pos),), f"{node.name}_at")
    vals = c.emit(T.ReshapeOp.create_from([c.cast(c.value(src), elem)], TensorType(elem, [len(pos)])))
    return c.emit(T.ReshapeOp.create_from([_scatter_into(c, flat, 0, idx, vals, False)], t))


@handles("diagonal", to="torch.permute, torch.reshape, torch.index_select")
def _diagonal(c: Converter, node, x, offset=0, dim1=0, dim2=1):
    """The `offset`-th diagonal of dims dim1, dim2, as the last dim: those two dims moved last
    and flattened, and the diagonal's positions picked."""
    t = c.out_type()
    r = c.rank(x)
    d1, d2 = norm_dim(dim1, r), norm_dim(dim2, r)
    rest = [i for i in range(r) if i not in (d1, d2)]
    shape = c.shape(x)
    n, m = shape[d1], shape[d2]
    v = c.value(x)
    lead = [shape[i] for i in rest]
    if [*rest, d1, d2] != list(range(r)):
        moved = TensorType(t.element_type, [*lead, n, m])
        v = c.emit(T.PermuteOp.create_from([v], moved, {"dims": _dims_attr([*rest, d1, d2])}))
    v = c.emit(T.ReshapeOp.create_from([v], TensorType(t.element_type, [*lead, n * m])))
    rows = range(max(0, -offset), min(n, m - offset))
    return _pick(c, v, len(lead), [i * m + i + offset for i in rows], f"{node.name}_at")


@handles("diagonal_scatter", to="torch.index_select, torch.reshape, torch.permute, torch.iota, torch.sub, torch.eq, torch.where")
def _diagonal_scatter(c: Converter, node, x, src, offset=0, dim1=0, dim2=1):
    """x with its `offset`-th diagonal of dims dim1, dim2 replaced by `src`.

    src has diagonal's shape (the other dims, then the diagonal). where(j - i == offset, s, x):
    s is src spread over the n x m plane (at (i, j) its element min(i, j), the diagonal's
    position there; clamped off it), a pick of constant positions along src's last dim, moved
    into x's dims. An offset past the plane leaves x as it is (an empty diagonal), as in
    PyTorch."""
    t = c.out_type()
    r = c.rank(x)
    d1, d2 = norm_dim(dim1, r), norm_dim(dim2, r)
    shape = c.shape(x)
    n, m = shape[d1], shape[d2]
    v = c.cast(c.value(x), t.element_type)
    length = c.shape(src)[-1]
    if length == 0:
        return v
    rest = [i for i in range(r) if i not in (d1, d2)]
    at = [min(i, j, length - 1) for i in range(n) for j in range(m)]
    s = _pick(c, c.cast(c.value(src), t.element_type), r - 2, at, f"{node.name}_at")
    s = c.emit(T.ReshapeOp.create_from([s], TensorType(t.element_type, [*(shape[i] for i in rest), n, m])))
    order = [*rest, d1, d2]
    if order != list(range(r)):
        s = c.emit(T.PermuteOp.create_from([s], t, {"dims": _dims_attr([order.index(k) for k in range(r)])}))
    i64 = IntegerType(64)
    plane = [1] * r
    plane[d1], plane[d2] = n, m
    apart = c.emit(T.SubOp.create_from([_iota(c, r, d2, m), _iota(c, r, d1, n)], TensorType(i64, plane)))
    on = _op(c, T.EqOp, TensorType(IntegerType(1), plane), apart, offset)
    return _scalar_where(c, on, s, v, t)


@handles("gather", to="torch.mul, torch.add, torch.reshape, torch.embedding")
def _gather(c: Converter, node, x, dim, index, *, sparse_grad=False):
    """out[i][j][k] = x[i][index[i][j][k]][k] (dim 1): x as a column, looked up at each output's
    flat position (index times dim's stride, plus the other dims' positions times theirs)."""
    return _gather_value(c, c.value(x), norm_dim(dim, c.rank(x)), c.value(index))


def _gather_value(c: Converter, v: SSAValue, d: int, idx: SSAValue) -> SSAValue:
    """torch.gather(v, d, idx) of SSA values (`_gather`): the elements of `v` at `idx` along
    `d`, at the index's own positions elsewhere (each of its dims no larger than v's).

    `v` as a column [numel, 1] looked up (embedding) at each output's flat position: the index
    times d's stride plus the other dims' positions times theirs (iotas, no table), in the
    index's own shape (no flattening for the index maps to undo)."""
    t, it = v.type, idx.type
    assert isinstance(t, TensorType) and isinstance(it, TensorType)
    shape, ishape = list(t.get_shape()), list(it.get_shape())
    strides = [math.prod(shape[i + 1:]) for i in range(len(shape))]
    pos = idx if strides[d] == 1 else c.emit(T.MulOp.create_from([idx, c.constant(strides[d], it.element_type)], it))
    for i, n in enumerate(ishape):
        if i != d and n > 1:
            along = c.cast(_iota(c, len(ishape), i, n), it.element_type)
            pos = _broadcast(c, T.AddOp, pos, _op(c, T.MulOp, along.type, along, strides[i]))
    return _flat_lookup(c, v, pos)


def _flat_lookup(c: Converter, v: SSAValue, pos: SSAValue) -> SSAValue:
    """The elements of `v` at flat (row-major) positions `pos`, in `pos`'s shape: `v` as a
    column [numel, 1] looked up by one embedding, whose trailing unit dim is dropped."""
    t, pt = v.type, pos.type
    assert isinstance(t, TensorType) and isinstance(pt, TensorType)
    elem, box = t.element_type, list(pt.get_shape())
    rows = c.emit(T.ReshapeOp.create_from([v], TensorType(elem, [math.prod(t.get_shape()), 1])))
    picked = c.emit(T.EmbeddingOp.create_from([rows, pos], TensorType(elem, [*box, 1])))
    return c.emit(T.ReshapeOp.create_from([picked], TensorType(elem, box)))


def _broadcast(c: Converter, op_cls, a: SSAValue, b: SSAValue) -> SSAValue:
    """`op_cls`(a, b) at the shape they broadcast to, of `a`'s element type."""
    ta, tb = a.type, b.type
    assert isinstance(ta, TensorType) and isinstance(tb, TensorType)
    shape = torch.broadcast_shapes(tuple(ta.get_shape()), tuple(tb.get_shape()))
    return c.emit(op_cls.create_from([a, b], TensorType(ta.element_type, list(shape))))


def _clip_coordinates(c: Converter, v: SSAValue, size: int) -> SSAValue:
    """PyTorch's clip_coordinates (GridSampler.h): min(size - 1, max(v, 0))."""
    return _op(c, T.MinimumOp, v.type, _op(c, T.MaximumOp, v.type, v, 0.0), float(size - 1))


def _reflect_coordinates(c: Converter, v: SSAValue, twice_low: int, twice_high: int) -> SSAValue:
    """PyTorch's reflect_coordinates (GridSampler.h): `v` reflected off low and high (given
    doubled) until it lies between them; 0 where they are equal."""
    t = v.type
    assert isinstance(t, TensorType)
    if twice_low == twice_high:
        return c.constant(0.0, t.element_type, t.get_shape())
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    inside = _op(c, T.AbsOp, t, _op(c, T.SubOp, t, v, low))
    extra = _op(c, T.FmodOp, t, inside, span)
    flips = _op(c, T.FloorOp, t, _op(c, T.DivOp, t, inside, span))
    even = _op(c, T.EqOp, _bool_type(t), _op(c, T.FmodOp, t, flips, 2.0), 0.0)
    return _scalar_where(c, even, _op(c, T.AddOp, t, extra, low),
                         _op(c, T.AddOp, t, _op(c, T.SubOp, t, span, extra), low), t)


def _pad_coordinates(c: Converter, v: SSAValue, size: int, padding: int, align_corners: bool) -> SSAValue:
    """PyTorch's compute_coordinates: `v` as is (zeros, 0), clipped to the input (border, 1), or
    reflected off its edges and clipped (reflection, 2)."""
    if padding == 0:
        return v
    if padding == 2:
        low, high = (0, 2 * (size - 1)) if align_corners else (-1, 2 * size - 1)
        v = _reflect_coordinates(c, v, low, high)
    return _clip_coordinates(c, v, size)


def _in_bounds(c: Converter, v: SSAValue, size: int) -> SSAValue:
    """0 <= v <= size - 1 (False where v is NaN)."""
    t = v.type
    assert isinstance(t, TensorType)
    return _op(c, T.LogicalAndOp, _bool_type(t), _op(c, T.GeOp, _bool_type(t), v, 0.0),
               _op(c, T.LeOp, _bool_type(t), v, float(size - 1)))


def _grid_taps(c: Converter, coord: SSAValue, size: int, mode: int, padding: int, align_corners: bool,
               axis: int) -> tuple[SSAValue, SSAValue | None, SSAValue]:
    """One spatial dim of grid_sample: for the grid's coordinate `coord` (in [-1, 1]), the input
    positions it reads laid along `axis` (as floats), their weights (None for nearest) and
    whether each is inside the input, as PyTorch's GridSampler.h computes them."""
    t = coord.type
    assert isinstance(t, TensorType)
    rank, elem = len(t.get_shape()), t.element_type
    # grid_sampler_compute_source_index's unnormalize
    shifted = _op(c, T.AddOp, t, coord, 1.0)
    if align_corners:
        src = _op(c, T.MulOp, t, _op(c, T.DivOp, t, shifted, 2.0), float(size - 1))
    else:
        src = _op(c, T.DivOp, t, _op(c, T.SubOp, t, _op(c, T.MulOp, t, shifted, float(size)), 1.0), 2.0)
    if mode == 1:  # nearest: round half to even
        padded = _pad_coordinates(c, src, size, padding, align_corners)
        pos = c.emit(T.RoundOp.create_from([padded], t, {"decimals": IntAttr(0)}))
        return pos, None, _in_bounds(c, pos, size)
    if mode == 0:  # bilinear: floor and floor + 1, weighted 1 - frac and frac
        src = _pad_coordinates(c, src, size, padding, align_corners)
        base = _op(c, T.FloorOp, t, src)
        frac = _op(c, T.SubOp, t, src, base)
        o = c.cast(_iota(c, rank, axis, 2), elem)  # o = 0, 1: weights (1 - o) + (2o - 1) frac
        pos = _broadcast(c, T.AddOp, base, o)
        slope = _op(c, T.SubOp, o.type, _op(c, T.MulOp, o.type, o, 2.0), 1.0)
        weight = _broadcast(c, T.AddOp, _op(c, T.SubOp, o.type, 1.0, o), _broadcast(c, T.MulOp, frac, slope))
        return pos, weight, _in_bounds(c, pos, size)
    # bicubic: floor - 1 .. floor + 2, each padded, weighted by the cubic convolution of its
    # distance d (A = -0.75: ((A + 2) d - (A + 3)) d^2 + 1 within 1, else ((A d - 5A) d + 8A) d - 4A)
    base = _op(c, T.FloorOp, t, src)
    taps = c.cast(_iota(c, rank, axis, 4), elem)
    offsets = _op(c, T.SubOp, taps.type, taps, 1.0)
    d = _broadcast(c, T.SubOp, _op(c, T.SubOp, t, src, base), offsets)
    d = _op(c, T.AbsOp, d.type, d)
    near, far = _horner(c, (CUBIC_A + 2, -(CUBIC_A + 3), 0.0, 1.0), d), \
        _horner(c, (CUBIC_A, -5 * CUBIC_A, 8 * CUBIC_A, -4 * CUBIC_A), d)
    weight = _scalar_where(c, _op(c, T.LeOp, _bool_type(d.type), d, 1.0), near, far, d.type)  # type: ignore[arg-type]
    pos = _pad_coordinates(c, _broadcast(c, T.AddOp, base, offsets), size, padding, align_corners)
    return pos, weight, _in_bounds(c, pos, size)


@handles("grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
         to="torch.slice, torch.reshape, torch.add, torch.mul, torch.div, torch.floor, torch.round, torch.abs, torch.fmod, torch.where, torch.to_dtype, torch.embedding, torch.sum")
def _grid_sampler(c: Converter, node, x, grid, interpolation_mode, padding_mode, align_corners):
    """F.grid_sample, every mode and padding: one gather of every tap, weighted and summed.

    Bilinear, nearest and bicubic; zeros, border and reflection padding; as PyTorch's
    GridSampler.h computes them.

    Each spatial dim's taps lie along a new trailing dim; their flat input positions (taps
    outside the input read position 0 and count as 0) are picked by one embedding lookup of the
    input as a column (the positions keep their shape: no flattening for the index maps to undo),
    so a bilinear 2-D sample is one kernel reading four values an output."""
    t = c.out_type()
    elem = t.element_type
    shape = c.shape(x)
    n, ch, sizes = shape[0], shape[1], list(shape[2:])
    nd, outs = len(sizes), list(t.get_shape()[2:])
    rank = 2 + 2 * nd
    g = c.cast(c.value(grid), elem)
    coord_t = TensorType(elem, [n, 1, *outs, *[1] * nd])
    i64 = IntegerType(64)
    spatial = math.prod(sizes)
    pos = _broadcast(c, T.AddOp, _op(c, T.MulOp, TensorType(i64, [n] + [1] * (rank - 1)), _iota(c, rank, 0, n), ch * spatial),
                     _op(c, T.MulOp, TensorType(i64, [1, ch] + [1] * (rank - 2)), _iota(c, rank, 1, ch), spatial))
    weight = valid = None
    for k in range(nd):  # grid[..., 0] indexes the last dim (x), grid[..., 1] the one before ..
        coord = c.emit(T.ReshapeOp.create_from([_slice_value(c, g, nd + 1, nd - 1 - k, nd - k)], coord_t))
        taps, w, ok = _grid_taps(c, coord, sizes[k], interpolation_mode, padding_mode, bool(align_corners), 2 + nd + k)
        at = c.cast(_scalar_where(c, ok, taps, c.constant(0.0, elem), taps.type), i64)  # type: ignore[arg-type]
        pos = _broadcast(c, T.AddOp, pos, _op(c, T.MulOp, at.type, at, math.prod(sizes[k + 1:])))
        valid = ok if valid is None else _broadcast(c, T.LogicalAndOp, valid, ok)
        if w is not None:
            weight = w if weight is None else _broadcast(c, T.MulOp, weight, w)
    assert valid is not None
    picked = _flat_lookup(c, c.cast(c.value(x), elem), pos)
    picked = _scalar_where(c, valid, picked, c.constant(0.0, elem), picked.type)  # type: ignore[arg-type]
    if weight is None:  # nearest: one tap
        return c.emit(T.ReshapeOp.create_from([picked], t))
    terms = _broadcast(c, T.MulOp, picked, weight)
    return c.emit(T.SumOp(terms, list(range(2 + nd, rank)), False, t))


def _scale_factors(a: dict, rank: int) -> list:
    """The scale factor given per spatial dim (None where the size was given): `scale_factors`
    of a .vec overload, else scales_d / scales_h / scales_w (or scales)."""
    named = [a.get(k) for k in ("scales_d", "scales_h", "scales_w", "scales") if k in a]
    factors = a.get("scale_factors") or named[-rank:]
    return list(factors) + [None] * (rank - len(factors))


def _nearest_taps(n_in: int, n_out: int, scale: float | None, exact: bool) -> list[int]:
    """PyTorch's nearest source positions (UpSample.h): floor(dst * s), or floor((dst + 0.5) *
    s) for nearest-exact, in float32, s = 1 / scale or in / out, clamped to the input."""
    s = torch.tensor(1.0 / scale if scale and scale > 0 else n_in / n_out, dtype=torch.float32)
    dst = torch.arange(n_out, dtype=torch.float32) + (0.5 if exact else 0.0)
    return torch.clamp(torch.floor(dst * s).to(torch.int64), max=n_in - 1).tolist()


@handles("_upsample_nearest_exact1d", "_upsample_nearest_exact2d", "_upsample_nearest_exact3d",
         to="torch.index_select")
def _upsample_nearest_exact(c: Converter, node, x, *args, **kwargs):
    """mode="nearest-exact": each output reads the input element nearest its centre."""
    return _nearest_picks(c, node, x, exact=True)


def _nearest_picks(c: Converter, node, x, exact: bool) -> SSAValue:
    t = c.out_type()
    sizes, outs = c.shape(x)[2:], t.get_shape()[2:]
    factors = _scale_factors(bound_args(node), len(sizes))
    v = c.value(x)
    for d in range(len(sizes)):
        if sizes[d] != outs[d] or exact:
            v = _pick(c, v, d + 2, _nearest_taps(sizes[d], outs[d], factors[d], exact), f"{node.name}_at{d}")
    return v


@handles("upsample_nearest1d", "upsample_nearest2d", "upsample_nearest3d",
         to="torch.reshape, torch.expand, torch.index_select")
def _upsample_nearest(c: Converter, node, x, *args, **kwargs):
    """Integer scale factors: each element repeated (a view as [.., n, 1, ..], expand, reshape).

    Other sizes pick PyTorch's nearest source positions (`_nearest_taps`)."""
    t = c.out_type()
    sizes, outs = c.shape(x)[2:], t.get_shape()[2:]
    if any(o % n for n, o in zip(sizes, outs)):
        return _nearest_picks(c, node, x, exact=False)
    lead = list(c.shape(x)[:2])
    inter = lead + [n for s in sizes for n in (s, 1)]
    big = lead + [n for s, o in zip(sizes, outs) for n in (s, o // s)]
    v = c.emit(T.ReshapeOp.create_from([c.value(x)], TensorType(t.element_type, inter)))
    v = c.emit(T.ExpandOp.create_from([v], TensorType(t.element_type, big)))
    return c.emit(T.ReshapeOp.create_from([v], t))
