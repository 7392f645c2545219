"""Evaluate xDSL affine expressions and maps on NumPy integer arrays (for the CPU executors),
and the scatter the executors share."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)


def eval_expr(expr: AffineExpr, dims: Sequence, symbols: Sequence = ()):
    """The value of `expr` with dimension i bound to dims[i] (ints or broadcastable arrays)."""
    match expr:
        case AffineConstantExpr():
            return expr.value
        case AffineDimExpr():
            return dims[expr.position]
        case AffineSymExpr():
            return symbols[expr.position]
        case AffineBinaryOpExpr():
            lhs = eval_expr(expr.lhs, dims, symbols)
            rhs = eval_expr(expr.rhs, dims, symbols)
            match expr.kind:
                case AffineBinaryOpKind.Add:
                    return lhs + rhs
                case AffineBinaryOpKind.Mul:
                    return lhs * rhs
                case AffineBinaryOpKind.Mod:
                    return np.mod(lhs, rhs)
                case AffineBinaryOpKind.FloorDiv:
                    return np.floor_divide(lhs, rhs)
                case AffineBinaryOpKind.CeilDiv:
                    return -np.floor_divide(-lhs, rhs)
    raise ValueError(f"unsupported affine expression {expr}")


def eval_map(amap: AffineMap, values: Sequence) -> list:
    """The results of `amap`; `values` holds its dimensions then its symbols."""
    dims, symbols = values[: amap.num_dims], values[amap.num_dims :]
    return [eval_expr(e, dims, symbols) for e in amap.results]


def scatter_into(out: np.ndarray, ufunc, axis: int, index: np.ndarray, src: np.ndarray) -> np.ndarray:
    """`out` with each element of `src` folded in by `ufunc` (np.add, np.maximum, np.minimum) at
    its own position, `axis` replaced by `index` (of src's shape), clamped into [0, n): out[..,
    index[i], ..] = ufunc(out[..], src[i]) (torch.scatter_reduce with include_self; duplicates
    fold in turn; an index outside the dim, an error in PyTorch, lands on its edge as on the GPU,
    which never writes outside the buffer). A new array."""
    out = np.array(out, copy=True)
    pos = list(np.indices(index.shape, sparse=True))
    pos[axis] = np.clip(index.astype(np.int64), 0, out.shape[axis] - 1)
    ufunc.at(out, tuple(np.broadcast_arrays(*pos)), src)
    return out
