"""decompose-norms: torch.rms_norm and torch.layer_norm become reduce + elementwise chains."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import math
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from dpl.dialects import torch as t
from dpl.dialects.tensor import ReduceKind
from dpl.transforms.decompose.common import Emitter, decompose, shape_of


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


RULES = {t.RmsNormOp: _rms_norm, t.LayerNormOp: _layer_norm}


@dataclass(frozen=True)
class DecomposeNorms(ModulePass):
    """Rewrite torch.rms_norm and torch.layer_norm over their last `normalized_rank` dims.

    rms_norm: square, sum-reduce, * 1/N, + eps, rsqrt, broadcast, multiply, multiply by weight.
    layer_norm: mean, subtract, mean of squares (biased variance), + eps, rsqrt, multiply,
    then weight and bias where present.
    """

    name = "decompose-norms"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decompose(op, RULES)
