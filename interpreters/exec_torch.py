"""NumPy reference executor for the torch dialect: runs `@main` op by op.

    outs = run(module, [x, w])      # NumPy arrays in, NumPy arrays out

Floating values compute in the element type of the IR (f64 IR -> float64); embedding indices are
integer arrays. Each op follows PyTorch's definition (see dialects/torch.py); the tests compare
this executor with PyTorch in float64.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import func
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.ir import Operation

from dpl.dialects import torch as T
from dpl.interpreters.affine_np import scatter_into
from dpl.interpreters.scalar_eval import bitcast, divsi, lgamma_any, numpy_dtype


def _erf(x: np.ndarray) -> np.ndarray:
    return np.vectorize(math.erf, otypes=[x.dtype])(x)


def _shift(a: np.ndarray, b: np.ndarray, left: bool) -> np.ndarray:
    """PyTorch's integer shifts: a shift by a negative amount or by the bit width or more gives
    0 (left) or the sign's fill (right)."""
    bits = a.dtype.itemsize * 8
    ok = (b >= 0) & (b < bits)
    amount = np.where(ok, b, bits - 1).astype(a.dtype)
    if left:
        return np.where(ok, np.left_shift(a, amount), 0).astype(a.dtype)
    return np.right_shift(a, amount)


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
    T.AbsOp: np.abs,
    T.SignOp: lambda x: np.sign(x) if x.dtype.kind != "f" else np.where(np.isnan(x), 0, np.sign(x)),
    T.LogOp: np.log,
    T.Log1pOp: np.log1p,
    T.Log2Op: np.log2,
    T.Log10Op: np.log10,
    T.Exp2Op: np.exp2,
    T.Expm1Op: np.expm1,
    T.ErfOp: lambda x: _erf(x),
    T.LgammaOp: lgamma_any,
    T.FloorOp: lambda x: np.floor(x) if x.dtype.kind == "f" else x,
    T.CeilOp: lambda x: np.ceil(x) if x.dtype.kind == "f" else x,
    T.TruncOp: lambda x: np.trunc(x) if x.dtype.kind == "f" else x,
    T.TanOp: np.tan,
    T.AtanOp: np.arctan,
    T.AsinOp: np.arcsin,
    T.AcosOp: np.arccos,
    T.SinhOp: np.sinh,
    T.CoshOp: np.cosh,
    T.AsinhOp: np.arcsinh,
    T.AcoshOp: np.arccosh,
    T.AtanhOp: np.arctanh,
    T.MishOp: lambda x: x * np.tanh(np.log1p(np.exp(x))),
    T.HardsigmoidOp: lambda x: np.minimum(np.maximum(x + 3, 0), 6) / 6,
    T.HardswishOp: lambda x: x * np.minimum(np.maximum(x + 3, 0), 6) / 6,
    T.BitwiseNotOp: np.invert,
    T.IsnanOp: np.isnan,
    T.IsinfOp: np.isinf,
    T.LogicalNotOp: np.logical_not,
}

_BINARY: dict[type, Callable[[np.ndarray, np.ndarray], np.ndarray]] = {
    T.AddOp: np.add,
    T.SubOp: np.subtract,
    T.MulOp: np.multiply,
    T.DivOp: lambda a, b: _divide(a, b),
    T.PowOp: np.power,
    T.MaximumOp: np.maximum,
    T.MinimumOp: np.minimum,
    T.FmodOp: np.fmod,
    T.RemainderOp: lambda a, b: _remainder(a, b),
    T.Atan2Op: np.arctan2,
    T.CopysignOp: np.copysign,
    T.BitwiseAndOp: np.bitwise_and,
    T.BitwiseOrOp: np.bitwise_or,
    T.BitwiseXorOp: np.bitwise_xor,
    T.BitwiseLeftShiftOp: lambda a, b: _shift(a, b, left=True),
    T.BitwiseRightShiftOp: lambda a, b: _shift(a, b, left=False),
    T.EqOp: np.equal,
    T.NeOp: np.not_equal,
    T.LtOp: np.less,
    T.LeOp: np.less_equal,
    T.GtOp: np.greater,
    T.GeOp: np.greater_equal,
    T.LogicalAndOp: np.logical_and,
    T.LogicalOrOp: np.logical_or,
    T.LogicalXorOp: np.logical_xor,
}


def _divide(a, b):
    """True division of floats; integers rounded toward zero, as C divides."""
    if np.issubdtype(np.result_type(a, b), np.integer):
        return divsi(a, b)
    return np.divide(a, b)


def _remainder(a, b):
    """Python's %: the sign of the divisor (np.remainder, but exact where fmod is 0)."""
    r = np.fmod(a, b)
    fix = (r != 0) & ((r < 0) != (b < 0))
    return np.where(fix, r + b, r)


def _logsumexp(x, axis, keepdims):
    m = np.max(x, axis=axis, keepdims=True)
    m = np.where(np.isinf(m), 0, m)
    out = np.log(np.sum(np.exp(x - m), axis=axis, keepdims=True)) + m
    return out if keepdims else np.squeeze(out, axis)


_REDUCE = {
    T.MeanOp: np.mean, T.SumOp: np.sum, T.AmaxOp: np.max, T.AminOp: np.min, T.ProdOp: np.prod,
    T.LogsumexpOp: _logsumexp, T.AnyOp: np.any, T.AllOp: np.all,
}  # fmt: skip


def _var(op, x, axes, keepdims):
    n = int(np.prod([x.shape[a] for a in axes]))
    xc = x - np.mean(x, axis=axes, keepdims=True)
    v = np.sum(xc * xc, axis=axes, keepdims=keepdims) / max(0.0, n - op.correction.value.data)
    return np.sqrt(v) if isinstance(op, T.StdOp) else v


def _vector_norm(op, x, axes, keepdims):
    p, a = op.ord.value.data, np.abs(x)
    if p == math.inf:
        return np.max(a, axis=axes, keepdims=keepdims)
    if p == -math.inf:
        return np.min(a, axis=axes, keepdims=keepdims)
    if p == 0:
        return np.sum(a != 0, axis=axes, keepdims=keepdims).astype(x.dtype)
    return np.sum(a**p, axis=axes, keepdims=keepdims) ** (1.0 / p)


def _arg(op, x, axes, keepdims):
    fn = np.argmax if isinstance(op, T.ArgmaxOp) else np.argmin
    if len(axes) == 1 and x.ndim > 1:
        out = fn(x, axis=axes[0], keepdims=keepdims)
    else:
        out = fn(x.reshape(-1))
        out = np.reshape(out, [1] * x.ndim) if keepdims else out
    return np.asarray(out, dtype=np.int64)


def _where_all(cond, a, b):
    return np.where(cond, a, b)


def _clamp(op, x, *bounds):
    lo, hi = op.min, op.max
    i = 0
    if lo is not None:
        x = np.maximum(x, bounds[i])
        i += 1
    if hi is not None:
        x = np.minimum(x, bounds[i])
    return x


def _elementwise_params(op, x):
    if isinstance(op, T.LeakyReluOp):
        return np.where(x > 0, x, x * op.negative_slope.value.data)
    if isinstance(op, T.EluOp):
        alpha, scale, iscale = (a.value.data for a in (op.alpha, op.scale, op.input_scale))
        return np.where(x <= 0, np.expm1(x * iscale) * alpha * scale, x * scale)
    if isinstance(op, T.SoftplusOp):
        beta, threshold = op.beta.value.data, op.threshold.value.data
        return np.where(x * beta > threshold, x, np.log1p(np.exp(x * beta)) / beta)
    if isinstance(op, T.HardtanhOp):
        return np.minimum(np.maximum(x, op.min_val.value.data), op.max_val.value.data)
    if isinstance(op, T.RoundOp):
        d = op.decimals.data
        if x.dtype.kind != "f":
            return x
        if d == 0:
            return np.rint(x)
        if d > 0:
            return np.rint(x * 10.0**d) / 10.0**d
        return np.rint(x / 10.0**-d) * 10.0**-d
    return None


def _group_norm(op, x, *params):
    n, ch = x.shape[0], x.shape[1]
    g = op.num_groups.data
    xg = x.reshape(n, g, -1)
    mu = xg.mean(-1, keepdims=True)
    var = ((xg - mu) ** 2).mean(-1, keepdims=True)
    y = ((xg - mu) / np.sqrt(var + op.eps.value.data)).reshape(x.shape)
    per_channel = (1, ch) + (1,) * (x.ndim - 2)
    i = 0
    if op.weight is not None:
        y = y * params[i].reshape(per_channel)
        i += 1
    if op.bias is not None:
        y = y + params[i].reshape(per_channel)
    return y


def _window_slices(op, kernel, out_spatial):
    """(kernel offset, the input slices it reads for every output position) per offset."""
    stride = [v.data for v in op.stride.data]
    dil = [v.data for v in op.dilation.data]
    for k in itertools.product(*[range(n) for n in kernel]):
        yield k, tuple(
            slice(ki * di, ki * di + (o - 1) * st + 1, st)
            for ki, di, o, st in zip(k, dil, out_spatial, stride)
        )


def _padded(op, x, value):
    pads = [v.data for v in op.padding.data]
    return np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in pads], constant_values=value)


def _conv(op, x, w, bias=None):
    g = op.groups.data
    out_spatial = op.out_shape[2:]
    xp = _padded(op, x, 0)
    cg, cog = x.shape[1] // g, w.shape[0] // g
    out = np.zeros(op.out_shape, dtype=x.dtype)
    for gi in range(g):
        xg, wg = xp[:, gi * cg : (gi + 1) * cg], w[gi * cog : (gi + 1) * cog]
        for k, sl in _window_slices(op, w.shape[2:], out_spatial):
            patch = xg[(slice(None), slice(None), *sl)]
            out[:, gi * cog : (gi + 1) * cog] += np.einsum("nc...,oc->no...", patch, wg[(slice(None), slice(None), *k)])
    if bias is not None:
        out += bias.reshape((1, -1) + (1,) * (x.ndim - 2))
    return out


def _pool(op, x):
    kernel = [v.data for v in op.kernel.data]
    out_spatial = op.out_shape[2:]
    if isinstance(op, T.MaxPoolOp):
        xp, out = _padded(op, x, -np.inf), np.full(op.out_shape, -np.inf, dtype=x.dtype)
        for _, sl in _window_slices(op, kernel, out_spatial):
            out = np.maximum(out, xp[(slice(None), slice(None), *sl)])
        return out
    xp, ones = _padded(op, x, 0), _padded(op, np.ones((1, 1, *x.shape[2:]), dtype=x.dtype), 0)
    total, count = np.zeros(op.out_shape, dtype=x.dtype), 0
    for _, sl in _window_slices(op, kernel, out_spatial):
        total = total + xp[(slice(None), slice(None), *sl)]
        count = count + ones[(slice(None), slice(None), *sl)]
    if op.divisor.data:
        return total / op.divisor.data
    if op.count_include_pad.value.data:
        return total / math.prod(kernel)
    return total / count


def _batch_norm(op, x, mean, var, *params):
    per_channel = (1, x.shape[1]) + (1,) * (x.ndim - 2)
    y = (x - mean.reshape(per_channel)) / np.sqrt(var.reshape(per_channel) + op.eps.value.data)
    i = 0
    if op.weight is not None:
        y = y * params[i].reshape(per_channel)
        i += 1
    if op.bias is not None:
        y = y + params[i].reshape(per_channel)
    return y


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
    dt = numpy_dtype(out_type.element_type)
    cls = type(op)
    if cls in _UNARY:
        return _UNARY[cls](args[0])
    if isinstance(op, T.GeluOp):
        return _gelu(op, args[0])
    if isinstance(op, (T.LeakyReluOp, T.EluOp, T.SoftplusOp, T.HardtanhOp, T.RoundOp)):
        return _elementwise_params(op, args[0])
    if cls in _BINARY:
        return _BINARY[cls](args[0], args[1])
    if isinstance(op, T.WhereOp):
        return _where_all(*args)
    if isinstance(op, T.ClampOp):
        return _clamp(op, *args)
    if isinstance(op, T.ReduceOp):
        axes, keep = tuple(op.dim_list), bool(op.keepdim.value.data)
        if cls in _REDUCE:
            return _REDUCE[cls](args[0], axis=axes, keepdims=keep)
        if isinstance(op, (T.VarOp, T.StdOp)):
            return _var(op, args[0], axes, keep)
        if isinstance(op, T.VectorNormOp):
            return _vector_norm(op, args[0], axes, keep)
        if isinstance(op, (T.ArgmaxOp, T.ArgminOp)):
            return _arg(op, args[0], axes, keep)
    if isinstance(op, T.LogSoftmaxOp):
        x = args[0]
        m = np.max(x, axis=op.dim.data, keepdims=True)
        return x - m - np.log(np.sum(np.exp(x - m), axis=op.dim.data, keepdims=True))
    if isinstance(op, T.CumsumOp):
        return np.cumsum(args[0], axis=op.dim.data)
    if isinstance(op, T.ConvolutionOp):
        return _conv(op, *args)
    if isinstance(op, (T.MaxPoolOp, T.AvgPoolOp)):
        return _pool(op, args[0])
    if isinstance(op, T.GroupNormOp):
        return _group_norm(op, *args)
    if isinstance(op, T.BatchNormOp):
        return _batch_norm(op, *args)
    if isinstance(op, T.FlipOp):
        return np.flip(args[0], [d.data for d in op.dims.data])
    if isinstance(op, T.AsStridedOp):
        flat = np.ascontiguousarray(args[0]).reshape(-1)[op.offset.data :]
        strides = [s.data * flat.itemsize for s in op.stride.data]
        return np.lib.stride_tricks.as_strided(flat, out_shape, strides).copy()
    if isinstance(op, T.IndexSelectOp):
        return np.take(args[0], args[1].astype(np.int64), axis=op.dim.data)
    if isinstance(op, T.ScatterReduceOp):
        ufunc = {"sum": np.add, "amax": np.maximum, "amin": np.minimum}[op.reduce.data]
        return scatter_into(args[0], ufunc, op.dim.data, args[1], args[2])
    if isinstance(op, T.IotaOp):
        return np.arange(out_shape[op.dim.data], dtype=dt).reshape(out_shape)
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
    if isinstance(op, T.BitcastOp):
        return bitcast(args[0], dt)
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
        env[arg] = arr.astype(numpy_dtype(arg.type.element_type), copy=False)
    for op in block.ops:
        if isinstance(op, func.ReturnOp):
            return [np.asarray(env[v]) for v in op.arguments]
        result = _eval(op, [env[o] for o in op.operands])
        out_type = op.results[0].type
        assert isinstance(out_type, TensorType)
        result = np.asarray(result).astype(numpy_dtype(out_type.element_type), copy=False)
        if result.shape != tuple(out_type.get_shape()):
            raise ValueError(
                f"exec_torch: '{op.name}' produced shape {list(result.shape)}, "
                f"expected {list(out_type.get_shape())}"
            )
        env[op.results[0]] = result
    raise ValueError("exec_torch: @main has no func.return")
