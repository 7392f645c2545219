"""decompose-norms: torch's normalisations (rms_norm, layer_norm, group_norm, batch_norm in
inference) become reduce + elementwise chains."""

from __future__ import annotations

import math as pymath
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import math
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir.affine import AffineExpr
from xdsl.passes import ModulePass

from dpl.dialects import torch as t
from dpl.dialects.tensor import ReduceKind
from dpl.transforms.decompose.common import Emitter, decompose, shape_of
from dpl.transforms.decompose.shapes import reshape_exprs


def _norm_axes(op) -> tuple[list[int], int]:
    shape = shape_of(op.input)
    k = op.normalized_rank.data
    axes = list(range(len(shape) - k, len(shape)))
    count = 1
    for a in axes:
        count *= shape[a]
    return axes, count


def _mean(em: Emitter, x, axes, count, hint):
    total = em.reduce(ReduceKind.SUM, x, axes)
    return em.unary(total, lambda s, a: s.mul(a, s.const(1.0 / count)), hint=hint)


def _rms_norm(op: t.RmsNormOp, em: Emitter):
    x, shape = op.input, shape_of(op.input)
    axes, count = _norm_axes(op)
    eps = op.eps.value.data
    sq = em.unary(x, lambda s, a: s.mul(a, a), hint="sq")
    ss = em.reduce(ReduceKind.SUM, sq, axes)
    inv = em.unary(
        ss,
        lambda s, a: s.unary(
            math.RsqrtOp, s.add(s.mul(a, s.const(1.0 / count)), s.const(eps))
        ),
        hint="inv",
    )
    out = em.binary(x, em.broadcast(inv, shape), lambda s, a, b: s.mul(a, b), hint="normed")
    if op.weight is not None:
        out = em.binary(out, op.weight, lambda s, a, w: s.mul(a, w), shape=shape)
    return out


def _layer_norm(op: t.LayerNormOp, em: Emitter):
    x, shape = op.input, shape_of(op.input)
    axes, count = _norm_axes(op)
    eps = op.eps.value.data
    mean = _mean(em, x, axes, count, "mean")
    xc = em.binary(x, em.broadcast(mean, shape), lambda s, a, m: s.sub(a, m), hint="xc")
    sq = em.unary(xc, lambda s, a: s.mul(a, a), hint="sq")
    var = _mean(em, sq, axes, count, "var")
    inv = em.unary(var, lambda s, v: s.unary(math.RsqrtOp, s.add(v, s.const(eps))), hint="inv")
    out = em.binary(xc, em.broadcast(inv, shape), lambda s, a, b: s.mul(a, b), hint="normed")
    if op.weight is not None:
        out = em.binary(out, op.weight, lambda s, a, w: s.mul(a, w), shape=shape)
    if op.bias is not None:
        out = em.binary(out, op.bias, lambda s, a, b: s.add(a, b), shape=shape)
    return out


def _per_channel(em: Emitter, p, shape):
    """A [C] parameter broadcast along dim 1 of `shape` ([N, C, ...])."""
    exprs = [AffineExpr.dimension(1)]
    return em.map_exprs(p, exprs, shape, "bc")


def _group_norm(op: t.GroupNormOp, em: Emitter):
    """x viewed as [N, G, C/G * rest]: layer norm over the last dim, viewed back, then the
    per-channel weight and bias."""
    x, shape = op.input, shape_of(op.input)
    g = op.num_groups.data
    grouped = [shape[0], g, pymath.prod(shape[1:]) // g]
    xg = em.map_exprs(x, reshape_exprs(shape, grouped), grouped, "grouped")
    count = grouped[2]
    eps = op.eps.value.data
    mean = _mean(em, xg, [2], count, "mean")
    xc = em.binary(xg, em.broadcast(mean, grouped), lambda s, a, m: s.sub(a, m), hint="xc")
    var = _mean(em, em.unary(xc, lambda s, a: s.mul(a, a), hint="sq"), [2], count, "var")
    inv = em.unary(var, lambda s, v: s.unary(math.RsqrtOp, s.add(v, s.const(eps))), hint="inv")
    normed = em.binary(xc, em.broadcast(inv, grouped), lambda s, a, b: s.mul(a, b), hint="normed")
    out = em.map_exprs(normed, reshape_exprs(grouped, shape), shape)
    if op.weight is not None:
        out = em.binary(out, _per_channel(em, op.weight, shape), lambda s, a, w: s.mul(a, w))
    if op.bias is not None:
        out = em.binary(out, _per_channel(em, op.bias, shape), lambda s, a, b: s.add(a, b))
    return out


def _batch_norm(op: t.BatchNormOp, em: Emitter):
    """(x - running_mean) * rsqrt(running_var + eps) * weight + bias, per channel (dim 1)."""
    x, shape = op.input, shape_of(op.input)
    eps = op.eps.value.data
    inv = em.unary(op.running_var, lambda s, v: s.unary(math.RsqrtOp, s.add(v, s.const(eps))), hint="inv")
    out = em.binary(x, _per_channel(em, op.running_mean, shape), lambda s, a, m: s.sub(a, m), hint="xc")
    out = em.binary(out, _per_channel(em, inv, shape), lambda s, a, b: s.mul(a, b), hint="normed")
    if op.weight is not None:
        out = em.binary(out, _per_channel(em, op.weight, shape), lambda s, a, w: s.mul(a, w))
    if op.bias is not None:
        out = em.binary(out, _per_channel(em, op.bias, shape), lambda s, a, b: s.add(a, b))
    return out


RULES = {
    t.RmsNormOp: _rms_norm,
    t.LayerNormOp: _layer_norm,
    t.GroupNormOp: _group_norm,
    t.BatchNormOp: _batch_norm,
}


@dataclass(frozen=True)
class DecomposeNorms(ModulePass):
    """Rewrite torch.rms_norm and torch.layer_norm over their last `normalized_rank` dims.

    rms_norm: square, sum-reduce, * 1/N, + eps, rsqrt, broadcast, multiply, multiply by weight.
    layer_norm: mean, subtract, mean of squares (biased variance), + eps, rsqrt, multiply,
    then weight and bias where present. group_norm: the same on x viewed as [N, G, rest] (an
    index_map), viewed back, then per-channel weight and bias. batch_norm (inference): the
    running statistics, broadcast along dim 1; no reduction.
    """

    name = "decompose-norms"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decompose(op, RULES)
