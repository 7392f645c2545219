"""NumPy reference executor for the torch dialect: runs `@main` op by op.

    outs = run(module, [x, w])      # NumPy arrays in, NumPy arrays out

Floating values compute in the element type of the IR (f64 IR -> float64); embedding indices are
integer arrays. Each op follows PyTorch's definition (see dialects/torch.py); the tests compare
this executor with PyTorch in float64.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import (
    BFloat16Type,
    Float16Type,
    Float32Type,
    Float64Type,
    IntegerType,
    ModuleOp,
    TensorType,
)
from xdsl.ir import Attribute, Operation

from dpl.dialects import torch as T


def np_dtype(elem: Attribute) -> np.dtype:
    if isinstance(elem, Float64Type):
        return np.dtype(np.float64)
    if isinstance(elem, Float32Type):
        return np.dtype(np.float32)
    if isinstance(elem, (Float16Type, BFloat16Type)):
        return np.dtype(np.float32)  # no bf16 in NumPy; compute in f32
    if isinstance(elem, IntegerType):
        width = elem.width.data
        return np.dtype(np.bool_) if width == 1 else np.dtype(f"int{max(8, width)}")
    raise ValueError(f"exec_torch: unsupported element type {elem}")


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[x.dtype])(x)


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _gelu(op: T.GeluOp, x):
    if op.approximate.data == T.GeluApproximate.TANH:
        return 0.5 * x * (1.0 + np.tanh(math.sqrt(2.0 / math.pi) * (x + 0.044715 * x**3)))
    return 0.5 * x * (1.0 + _erf(x / math.sqrt(2.0)))


_UNARY: dict[type, Callable[[np.ndarray], np.ndarray]] = {
    T.NegOp: np.negative,
    T.ReluOp: lambda x: np.maximum(x, 0),
    T.SiluOp: lambda x: x * _sigmoid(x),
    T.SigmoidOp: _sigmoid,
    T.ExpOp: np.exp,
    T.TanhOp: np.tanh,
    T.RsqrtOp: lambda x: 1.0 / np.sqrt(x),
    T.SqrtOp: np.sqrt,
    T.ReciprocalOp: lambda x: 1.0 / x,
    T.CosOp: np.cos,
    T.SinOp: np.sin,
}

_BINARY: dict[type, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    T.AddOp: np.add,
    T.SubOp: np.subtract,
    T.MulOp: np.multiply,
    T.DivOp: np.divide,
    T.PowOp: np.power,
    T.MaximumOp: np.maximum,
}

_REDUCE = {T.MeanOp: np.mean, T.SumOp: np.sum, T.AmaxOp: np.max}


def _softmax(x, axis):
    e = np.exp(x - np.max(x, axis=axis, keepdims=True))
    return e / np.sum(e, axis=axis, keepdims=True)


def _sdpa(op: T.ScaledDotProductAttentionOp, q, k, v, mask=None):
    if op.enable_gqa.value.data and q.ndim >= 3 and q.shape[-3] != k.shape[-3]:
        rep = q.shape[-3] // k.shape[-3]
        k = np.repeat(k, rep, axis=-3)
        v = np.repeat(v, rep, axis=-3)
    scores = np.matmul(q, np.swapaxes(k, -1, -2)) * op.scale.value.data
    L, S = q.shape[-2], k.shape[-2]
    if op.is_causal.value.data:
        keep = np.tril(np.ones((L, S), dtype=bool))
        scores = np.where(keep, scores, -np.inf)
    if mask is not None:
        scores = scores + mask
    return np.matmul(_softmax(scores, -1), v)


def _norm_axes(op, x) -> tuple[int, ...]:
    n = op.normalized_rank.data
    return tuple(range(x.ndim - n, x.ndim))


def _eval(op: Operation, args: list[np.ndarray]) -> np.ndarray:
    out_type = op.results[0].type
    assert isinstance(out_type, TensorType)
    out_shape = tuple(out_type.get_shape())
    dt = np_dtype(out_type.element_type)
    cls = type(op)
    if cls in _UNARY:
        return _UNARY[cls](args[0])
    if isinstance(op, T.GeluOp):
        return _gelu(op, args[0])
    if cls in _BINARY:
        return _BINARY[cls](args[0], args[1])
    if cls in _REDUCE:
        assert isinstance(op, T.ReduceOp)
        return _REDUCE[cls](args[0], axis=tuple(op.dim_list), keepdims=bool(op.keepdim.value.data))
    if isinstance(op, T.ConstantOp):
        values = op.value.get_values()
        arr = np.asarray(values, dtype=dt)
        return np.full(out_shape, arr.reshape(-1)[0], dtype=dt) if arr.size == 1 else arr.reshape(out_shape)
    if isinstance(op, T.SoftmaxOp):
        return _softmax(args[0], op.dim.data)
    if isinstance(op, T.RmsNormOp):
        x = args[0]
        ms = np.mean(x * x, axis=_norm_axes(op, x), keepdims=True)
        y = x / np.sqrt(ms + op.eps.value.data)
        return y * args[1] if len(args) > 1 else y
    if isinstance(op, T.LayerNormOp):
        x = args[0]
        axes = _norm_axes(op, x)
        mu = np.mean(x, axis=axes, keepdims=True)
        var = np.mean((x - mu) ** 2, axis=axes, keepdims=True)
        y = (x - mu) / np.sqrt(var + op.eps.value.data)
        if op.weight is not None:
            y = y * args[1]
        if op.bias is not None:
            y = y + args[-1]
        return y
    if isinstance(op, T.LinearOp):
        y = np.matmul(args[0], args[1].T)
        return y + args[2] if len(args) > 2 else y
    if isinstance(op, T.MatmulOp):
        return np.matmul(args[0], args[1])
    if isinstance(op, T.ScaledDotProductAttentionOp):
        return _sdpa(op, *args)
    if isinstance(op, T.ReshapeOp):
        return args[0].reshape(out_shape)
    if isinstance(op, T.TransposeOp):
        return np.swapaxes(args[0], op.dim0.data, op.dim1.data)
    if isinstance(op, T.PermuteOp):
        return np.transpose(args[0], [d.data for d in op.dims.data])
    if isinstance(op, T.UnsqueezeOp):
        return np.expand_dims(args[0], op.dim.data)
    if isinstance(op, T.ExpandOp):
        return np.broadcast_to(args[0], out_shape)
    if isinstance(op, T.SliceOp):
        index = [slice(None)] * args[0].ndim
        index[op.dim.data] = slice(op.start.data, op.end.data, op.step.data)
        return args[0][tuple(index)]
    if isinstance(op, T.CatOp):
        return np.concatenate(args, axis=op.dim.data)
    if isinstance(op, T.EmbeddingOp):
        return args[0][args[1]]
    if isinstance(op, T.ToDtypeOp):
        return args[0].astype(dt)
    raise ValueError(f"exec_torch: no implementation for '{op.name}'")


def find_main(module: ModuleOp) -> func.FuncOp:
    for op in module.walk():
        if isinstance(op, func.FuncOp) and op.sym_name.data == "main":
            return op
    raise ValueError("exec_torch: module has no func.func @main")


def run(module: ModuleOp, inputs: Sequence[np.ndarray]) -> list[np.ndarray]:
    """Run @main on `inputs` (one array per argument) and return its results."""
    main = find_main(module)
    block = main.body.block
    if len(inputs) != len(block.args):
        raise ValueError(f"exec_torch: @main takes {len(block.args)} inputs, got {len(inputs)}")
    env: dict = {}
    for arg, value in zip(block.args, inputs):
        assert isinstance(arg.type, TensorType)
        arr = np.asarray(value)
        if tuple(arr.shape) != tuple(arg.type.get_shape()):
            raise ValueError(
                f"exec_torch: input '{arg.name_hint}' has shape {list(arr.shape)}, "
                f"expected {list(arg.type.get_shape())}"
            )
        env[arg] = arr.astype(np_dtype(arg.type.element_type), copy=False)
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            return [np.asarray(env[v]) for v in op.arguments]
        result = _eval(op, [env[o] for o in op.operands])
        out_type = op.results[0].type
        assert isinstance(out_type, TensorType)
        result = np.asarray(result).astype(np_dtype(out_type.element_type), copy=False)
        if result.shape != tuple(out_type.get_shape()):
            raise ValueError(
                f"exec_torch: '{op.name}' produced shape {list(result.shape)}, "
                f"expected {list(out_type.get_shape())}"
            )
        env[op.results[0]] = result
    raise ValueError("exec_torch: @main has no func.return")
