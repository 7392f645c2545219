"""decompose-activations: the piecewise activations and clamps become `tensor.elementwise`."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import math
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from dpl.dialects import torch as t
from dpl.transforms.decompose.common import Emitter, Scalar, decompose, elem_of, shape_of


def _scaled(s: Scalar, a, k: float):
    return a if k == 1.0 else s.mul(a, s.const(k))


def _relu6_of(s: Scalar, a):
    """min(max(a + 3, 0), 6), hardsigmoid's and hardswish's core."""
    return s.min(s.max(s.add(a, s.const(3.0)), s.const(0.0)), s.const(6.0))


def _leaky_relu(op: t.LeakyReluOp, s: Scalar, a):
    """a > 0 ? a : a * slope."""
    positive = s.cmp("gt", a, s.const(0.0))
    return s.select(positive, a, s.mul(a, s.const(op.negative_slope.value.data)))


def _elu(op: t.EluOp, s: Scalar, a):
    """a <= 0 ? expm1(a * input_scale) * alpha * scale : a * scale (ATen's order of ops)."""
    alpha, scale, iscale = (v.value.data for v in (op.alpha, op.scale, op.input_scale))
    negative = s.cmp("le", a, s.const(0.0))
    low = s.mul(s.unary(math.ExpM1Op, _scaled(s, a, iscale)), s.const(alpha * scale))
    return s.select(negative, low, _scaled(s, a, scale))


def _softplus(op: t.SoftplusOp, s: Scalar, a):
    """a * beta > threshold ? a : log1p(exp(a * beta)) / beta."""
    beta, threshold = op.beta.value.data, op.threshold.value.data
    ab = _scaled(s, a, beta)
    smooth = s.unary(math.Log1pOp, s.unary(math.ExpOp, ab))
    smooth = smooth if beta == 1.0 else s.div(smooth, s.const(beta))
    return s.select(s.cmp("gt", ab, s.const(threshold)), a, smooth)


def _hardtanh(op: t.HardtanhOp, s: Scalar, a):
    return s.min(s.max(a, s.const(op.min_val.value.data)), s.const(op.max_val.value.data))


_UNARY = {
    t.LeakyReluOp: _leaky_relu,
    t.EluOp: _elu,
    t.SoftplusOp: _softplus,
    t.HardtanhOp: _hardtanh,
    t.HardsigmoidOp: lambda op, s, a: s.div(_relu6_of(s, a), s.const(6.0)),
    t.HardswishOp: lambda op, s, a: s.div(s.mul(a, _relu6_of(s, a)), s.const(6.0)),
}


def _unary(op, em: Emitter):
    fn = _UNARY[type(op)]
    return em.unary(op.input, lambda s, a: fn(op, s, a))


def _clamp(op: t.ClampOp, em: Emitter):
    """max with the min bound, then min with the max bound (so min > max gives max, as torch)."""
    shape = shape_of(op.result)
    lo, hi = op.min, op.max
    ins = [em.broadcast(v, shape) for v in (op.input, lo, hi) if v is not None]

    def body(s: Scalar, a, *bounds):
        i = 0
        if lo is not None:
            a, i = s.max(a, bounds[0]), 1
        if hi is not None:
            a = s.min(a, bounds[i])
        return a

    return em.elementwise(ins, elem_of(op.result), shape, body)


RULES = {**{cls: _unary for cls in _UNARY}, t.ClampOp: _clamp}


@dataclass(frozen=True)
class DecomposeActivations(ModulePass):
    """Rewrite leaky_relu, elu (selu, celu), softplus, hardtanh (relu6), hardsigmoid, hardswish
    and clamp into one `tensor.elementwise` each.

    The bodies follow ATen's formulas op for op (elu through expm1, softplus linear above its
    threshold, hardswish as x * relu6(x + 3) / 6), so float64 results agree with PyTorch to
    rounding; clamp's tensor bounds are broadcast to the result shape first.
    """

    name = "decompose-activations"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decompose(op, RULES)
