"""Evaluate xDSL affine expressions and maps on NumPy integer arrays (for the CPU executors)."""

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
