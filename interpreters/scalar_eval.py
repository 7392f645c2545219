"""Evaluate upstream arith/math scalar ops on whole NumPy arrays (vectorised).

A body of scalar ops (an elementwise body, a loop body) is evaluated once for all elements: each
SSA value maps to an ndarray (or a 0-d array for a constant) and each op is applied with NumPy's
broadcasting. The CPU executors of every level share this:

    env = {arg: array, ...}
    for op in block.ops:
        if is_scalar_op(op):
            env.update(zip(op.results, eval_op(op, [env[v] for v in op.operands])))
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
)
from xdsl.ir import Attribute, Operation


def numpy_dtype(t: Attribute) -> np.dtype:
    """The NumPy dtype that holds values of builtin scalar type `t` (the one map of every executor:
    f16 is float16 as on the GPU; bf16, which NumPy lacks, computes in float32)."""
    if isinstance(t, Float64Type):
        return np.dtype(np.float64)
    if isinstance(t, Float32Type):
        return np.dtype(np.float32)
    if isinstance(t, Float16Type):
        return np.dtype(np.float16)
    if isinstance(t, BFloat16Type):
        return np.dtype(np.float32)
    if isinstance(t, IndexType):
        return np.dtype(np.int64)
    if isinstance(t, IntegerType):
        width = t.width.data
        if width == 1:
            return np.dtype(np.bool_)
        return np.dtype({8: np.int8, 16: np.int16, 32: np.int32, 64: np.int64}.get(width, np.int64))
    raise ValueError(f"no NumPy dtype for type {t}")


_erf = np.vectorize(math.erf, otypes=[np.float64])


def _erf_any(x: np.ndarray) -> np.ndarray:
    return _erf(x).astype(np.asarray(x).dtype)


def _lgamma(v: float) -> float:
    """C's lgamma: +inf at the poles (0, the negative integers), where Python's raises."""
    try:
        return math.lgamma(v)
    except ValueError:
        return math.inf


_lgamma_vec = np.vectorize(_lgamma, otypes=[np.float64])


def lgamma_any(x: np.ndarray) -> np.ndarray:
    """log |Gamma(x)| elementwise, in x's dtype (computed in float64, rounded once)."""
    return _lgamma_vec(x).astype(np.asarray(x).dtype)


def _floordiv(a, b):
    return np.floor_divide(a, b)


def divsi(a, b):
    """C's integer division, rounded toward zero."""
    q = np.abs(a) // np.abs(b)
    return np.where((a < 0) != (b < 0), -q, q)


def _remsi(a, b):
    return a - divsi(a, b) * b


def _ceildiv(a, b):
    return -np.floor_divide(-a, b)


def _nan_max(a, b):  # arith.maximumf propagates NaN, like np.maximum
    return np.maximum(a, b)


_CMPF: dict[str, Callable] = {
    "false": lambda a, b: np.zeros(np.broadcast(a, b).shape, bool),
    "oeq": np.equal, "ogt": np.greater, "oge": np.greater_equal, "olt": np.less,
    "ole": np.less_equal, "one": lambda a, b: (a != b) & ~np.isnan(a) & ~np.isnan(b),
    "ord": lambda a, b: ~np.isnan(a) & ~np.isnan(b),
    "ueq": lambda a, b: (a == b) | np.isnan(a) | np.isnan(b),
    "ugt": lambda a, b: ~(a <= b), "uge": lambda a, b: ~(a < b),
    "ult": lambda a, b: ~(a >= b), "ule": lambda a, b: ~(a > b),
    "une": np.not_equal, "uno": lambda a, b: np.isnan(a) | np.isnan(b),
    "true": lambda a, b: np.ones(np.broadcast(a, b).shape, bool),
}
_CMPF_NAMES = ["false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord",
               "ueq", "ugt", "uge", "ult", "ule", "une", "uno", "true"]
_CMPI = [np.equal, np.not_equal, np.less, np.less_equal, np.greater, np.greater_equal,
         np.less, np.less_equal, np.greater, np.greater_equal]  # eq ne slt sle sgt sge ult ule ugt uge

_BINARY: dict[str, Callable] = {
    "arith.addf": np.add, "arith.subf": np.subtract, "arith.mulf": np.multiply,
    "arith.divf": np.divide, "arith.remf": np.fmod,
    "arith.maximumf": _nan_max, "arith.minimumf": np.minimum,
    "arith.maxnumf": np.fmax, "arith.minnumf": np.fmin,
    "arith.addi": np.add, "arith.subi": np.subtract, "arith.muli": np.multiply,
    "arith.divsi": divsi, "arith.divui": _floordiv, "arith.floordivsi": _floordiv,
    "arith.ceildivsi": _ceildiv, "arith.ceildivui": _ceildiv,
    "arith.remsi": _remsi, "arith.remui": np.mod,
    "arith.maxsi": np.maximum, "arith.minsi": np.minimum,
    "arith.maxui": np.maximum, "arith.minui": np.minimum,
    "arith.andi": np.bitwise_and, "arith.ori": np.bitwise_or, "arith.xori": np.bitwise_xor,
    "arith.shli": np.left_shift, "arith.shrsi": np.right_shift, "arith.shrui": np.right_shift,
    "math.powf": np.power, "math.atan2": np.arctan2, "math.copysign": np.copysign,
}
_UNARY: dict[str, Callable] = {
    "arith.negf": np.negative,
    "math.absf": np.abs, "math.absi": np.abs, "math.exp": np.exp, "math.exp2": np.exp2,
    "math.expm1": np.expm1, "math.log": np.log, "math.log2": np.log2, "math.log10": np.log10,
    "math.log1p": np.log1p, "math.sqrt": np.sqrt, "math.rsqrt": lambda x: 1 / np.sqrt(x),
    "math.tanh": np.tanh, "math.sinh": np.sinh, "math.cosh": np.cosh, "math.sin": np.sin,
    "math.cos": np.cos, "math.tan": np.tan, "math.atan": np.arctan, "math.asin": np.arcsin,
    "math.acos": np.arccos, "math.asinh": np.arcsinh, "math.acosh": np.arccosh,
    "math.atanh": np.arctanh, "math.erf": _erf_any, "math.lgamma": lgamma_any, "math.floor": np.floor,
    "math.ceil": np.ceil, "math.round": lambda x: np.trunc(x + np.copysign(0.5, x)),
    "math.roundeven": np.rint, "math.trunc": np.trunc, "math.cbrt": np.cbrt,
}
_CASTS = {
    "arith.sitofp", "arith.uitofp", "arith.fptosi", "arith.fptoui", "arith.extf",
    "arith.truncf", "arith.extsi", "arith.extui", "arith.trunci", "arith.index_cast",
    "arith.index_castui",
}


def bitcast(a: np.ndarray, dtype: np.dtype) -> np.ndarray:
    """`a`'s bits read as `dtype` of the same item size (bf16, held as float32, has no bits of
    its own here: the frontend refuses its bitcasts)."""
    a = np.ascontiguousarray(a)
    assert a.dtype.itemsize == dtype.itemsize, f"bitcast of {a.dtype} as {dtype}"
    return a.view(dtype)


def is_scalar_op(op: Operation) -> bool:
    """Whether `eval_op` knows `op`."""
    return (
        op.name in _BINARY or op.name in _UNARY or op.name in _CASTS
        or op.name in ("arith.constant", "arith.cmpf", "arith.cmpi", "arith.select",
                       "math.fma", "math.fpowi", "math.ipowi", "arith.bitcast")
    )


def _constant(op: Operation) -> np.ndarray:
    value = op.properties.get("value")
    if value is None:  # not `or`: an index constant 0 is falsy
        value = op.attributes.get("value")
    dtype = numpy_dtype(op.results[0].type)
    if isinstance(value, FloatAttr):
        return np.asarray(value.value.data, dtype=dtype)
    if isinstance(value, IntegerAttr):
        return np.asarray(value.value.data, dtype=dtype)
    raise ValueError(f"'{op.name}': cannot evaluate constant {value}")


def eval_op(op: Operation, args: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Apply one arith/math op to NumPy arrays (broadcasting); returns its results."""
    name = op.name
    if name == "arith.constant":
        return [_constant(op)]
    dtype = numpy_dtype(op.results[0].type)
    with np.errstate(all="ignore"):
        if name in _BINARY:
            out = _BINARY[name](args[0], args[1])
        elif name in _UNARY:
            out = _UNARY[name](args[0])
        elif name in _CASTS:
            out = args[0]
        elif name == "arith.cmpf":
            out = _CMPF[_CMPF_NAMES[op.properties["predicate"].value.data]](args[0], args[1])
        elif name == "arith.cmpi":
            out = _CMPI[op.properties["predicate"].value.data](args[0], args[1])
        elif name == "arith.select":
            out = np.where(args[0], args[1], args[2])
        elif name == "arith.bitcast":
            out = bitcast(args[0], dtype)
        elif name == "math.fma":
            # one rounding (as fmaf): a float32 product is exact in float64
            wide = np.float64 if np.dtype(dtype).itemsize < 8 else dtype
            out = np.asarray(args[0], wide) * np.asarray(args[1], wide) + np.asarray(args[2], wide)
        elif name in ("math.fpowi", "math.ipowi"):
            out = np.power(args[0], args[1])
        else:
            raise ValueError(f"the CPU executor cannot evaluate '{name}'")
        return [np.asarray(out).astype(dtype, copy=False)]
