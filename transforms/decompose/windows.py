"""decompose-windows: convolution and pooling become index maps onto a window box and a reduce.

A window op over spatial dims S with kernel K reads, for output position o and kernel offset
k, input element o * stride + k * dilation of the zero- (or -inf-) padded input. The kernel
offsets of all spatial dims (and, for convolution, the input channels of a group) are flattened
into one axis `r`, so each op is an index map onto [.., *O, R] (floordiv/mod split `r` back into
its parts) followed by one reduce over `r`: convolution is then a contraction, like a matmul
with R as its K.
"""

from __future__ import annotations

import math as pymath
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.passes import ModulePass

from dpl.dialects import torch as t
from dpl.dialects.tensor import ReduceKind
from dpl.transforms.decompose.common import Emitter, decompose, elem_of, shape_of
from dpl.transforms.decompose.shapes import reshape_exprs

d = AffineExpr.dimension


def _ints(attr) -> list[int]:
    return [a.data for a in attr.data]


def pad(em: Emitter, x: SSAValue, pads: Sequence[int], value: float) -> SSAValue:
    """x with `pads[i]` elements of `value` before and after trailing spatial dim i: one
    elementwise op over the padded shape, reading x at `(o + k * n - p) mod n` (inside x at every
    padded index o: the mod's operand is never negative, so C's `%` reads it right) and keeping
    it where `p <= o < p + n`, so every padded dim is one pass over x, not a concat each."""
    shape = list(shape_of(x))
    lead = len(shape) - len(pads)
    if not any(pads):
        return x
    out = list(shape)
    exprs = [d(i) for i in range(len(shape))]
    for i, p in enumerate(pads):
        n = shape[lead + i]
        out[lead + i] = n + 2 * p
        if p:
            exprs[lead + i] = (d(lead + i) + (-(-p // n)) * n - p) % n
    etype = elem_of(x)
    inside = em.map_exprs(x, exprs, out, "shifted")

    def keep(s, v, *idx):
        ok = None
        for i, p in enumerate(pads):
            if not p:
                continue
            o, n = idx[lead + i], shape[lead + i]
            c = s.op(arith.AndIOp(s.cmpi("uge", o, s.const(p, IndexType())), s.cmpi("ult", o, s.const(p + n, IndexType()))))
            ok = c if ok is None else s.op(arith.AndIOp(ok, c))
        return s.select(ok, v, s.const(value, etype))

    return em.elementwise([inside], etype, out, keep, with_indices=True, hint="padded")


def _offsets(r: AffineExpr, kernel: Sequence[int]) -> list[AffineExpr]:
    """The per-dim kernel offsets packed row-major in `r` (kernel dims last)."""
    out = []
    for i, k in enumerate(kernel):
        inner = pymath.prod(kernel[i + 1 :])
        e = r if inner == 1 else r // inner
        out.append(e if i == 0 else e % k)
    return out


def _window_exprs(op, kernel, out_dims: list[AffineExpr], r: AffineExpr) -> list[AffineExpr]:
    """Input indices o * stride + k * dilation per spatial dim, k the offsets packed in `r`."""
    stride, dil = _ints(op.stride), _ints(op.dilation)
    return [o * s + k * dl for o, s, k, dl in zip(out_dims, stride, _offsets(r, kernel), dil)]


def _convolution(op: t.ConvolutionOp, em: Emitter):
    """On the box [N, G, Co/G, *O, R] (R = C/G * prod(K)): x[n, g*C/G + r // prod(K), o*s + k*d]
    times w[g*Co/G + co, r // prod(K), k], summed over R; then [N, Co, *O] (+ bias)."""
    x = pad(em, op.input, _ints(op.padding), 0.0)
    xs, ws, out = shape_of(op.input), shape_of(op.weight), shape_of(op.result)
    g, kernel = op.groups.data, list(ws[2:])
    rank = len(kernel)
    cg, cog, kk = xs[1] // g, ws[0] // g, pymath.prod(kernel)
    box = [xs[0], g, cog, *out[2:], cg * kk]
    r = d(3 + rank)
    channel = r if kk == 1 else r // kk
    inner = AffineExpr.constant(0) if kk == 1 else r % kk
    spatial = [d(3 + i) for i in range(rank)]
    x_exprs = [d(0), d(1) * cg + channel, *_window_exprs(op, kernel, spatial, inner)]
    w_exprs = [d(1) * cog + d(2), channel, *_offsets(inner, kernel)]
    red = em.contract(x, x_exprs, op.weight, w_exprs, box, 3 + rank, "conv")
    y = em.map_exprs(red, reshape_exprs(shape_of(red), out), out, "conv")
    if op.bias is not None:
        bias = em.map_exprs(op.bias, [d(1)], out, "bc")
        y = em.binary(y, bias, lambda s, a, b: s.add(a, b))
    return y


def _window_sum(op, em: Emitter, x: SSAValue, kind: ReduceKind, out: Sequence[int]) -> SSAValue:
    """x's windows on the box [N, C, *O, prod(K)], reduced by `kind` over the window: [N, C, *O]."""
    kernel = _ints(op.kernel)
    rank = len(kernel)
    spatial = [d(2 + i) for i in range(rank)]
    exprs = [d(0), d(1), *_window_exprs(op, kernel, spatial, d(2 + rank))]
    windows = em.map_exprs(x, exprs, [*out, pymath.prod(kernel)], "window")
    return em.squeeze(em.reduce(kind, windows, [2 + rank]), [2 + rank])


def _max_pool(op: t.MaxPoolOp, em: Emitter):
    x = pad(em, op.input, _ints(op.padding), float("-inf"))
    return _window_sum(op, em, x, ReduceKind.MAX, shape_of(op.result))


def _avg_pool(op: t.AvgPoolOp, em: Emitter):
    """The window sum divided by `divisor`, the window size, or (without count_include_pad)
    the count of its elements inside the input: the window sum of a padded ones tensor."""
    pads, out = _ints(op.padding), shape_of(op.result)
    total = _window_sum(op, em, pad(em, op.input, pads, 0.0), ReduceKind.SUM, out)
    if op.divisor.data or op.count_include_pad.value.data or not any(pads):
        n = op.divisor.data or pymath.prod(_ints(op.kernel))
        return em.unary(total, lambda s, a: s.mul(a, s.const(1.0 / n)))
    etype, spatial = elem_of(op.input), list(shape_of(op.input)[2:])
    ones = em.elementwise([], etype, [1, 1, *spatial], lambda s: s.const(1.0), hint="ones")
    counts = _window_sum(op, em, pad(em, ones, pads, 0.0), ReduceKind.SUM, [1, 1, *out[2:]])
    return em.binary(total, em.broadcast(counts, out), lambda s, a, b: s.div(a, b))


RULES = {t.ConvolutionOp: _convolution, t.MaxPoolOp: _max_pool, t.AvgPoolOp: _avg_pool}


@dataclass(frozen=True)
class DecomposeWindows(ModulePass):
    """Rewrite torch.convolution, torch.max_pool and torch.avg_pool (any number of spatial dims).

    The input is padded by concatenating splat blocks (0, or -inf for max_pool), then
    index-mapped onto a box whose last axis runs over the window (and, for convolution, the
    group's input channels), and reduced over it: a contraction with the weight for
    convolution, max for max_pool, a sum scaled by the divisor for avg_pool.
    """

    name = "decompose-windows"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decompose(op, RULES)
