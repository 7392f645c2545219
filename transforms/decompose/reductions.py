"""decompose-reductions: torch.sum / mean / amax / softmax become `tensor.reduce` chains."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import math
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass

from dpl.dialects import torch as t
from dpl.dialects.tensor import ReduceKind
from dpl.transforms.decompose.common import Emitter, decompose, shape_of

_KIND = {t.SumOp: ReduceKind.SUM, t.MeanOp: ReduceKind.SUM, t.AmaxOp: ReduceKind.MAX}


def _reduce(op, em: Emitter):
    shape = shape_of(op.input)
    dims = [d.data for d in op.dims] or list(range(len(shape)))
    red = em.reduce(_KIND[type(op)], op.input, dims)
    if isinstance(op, t.MeanOp):
        count = 1
        for d in dims:
            count *= shape[d]
        red = em.unary(red, lambda s, a: s.mul(a, s.const(1.0 / count)))
    if op.keepdim.value.data:
        return red
    return em.squeeze(red, dims)


def softmax(em: Emitter, x, dim: int):
    """exp(x - max) / sum(exp(x - max)) along `dim`, in the seeds' order of ops."""
    shape = shape_of(x)
    mx = em.reduce(ReduceKind.MAX, x, [dim], "max")
    e = em.binary(
        x, em.broadcast(mx, shape), lambda s, a, m: s.unary(math.ExpOp, s.sub(a, m)), hint="exp"
    )
    total = em.reduce(ReduceKind.SUM, e, [dim], "sum")
    return em.binary(e, em.broadcast(total, shape), lambda s, a, b: s.div(a, b))


def _softmax(op: t.SoftmaxOp, em: Emitter):
    return softmax(em, op.input, op.dim.data)


RULES = {t.SumOp: _reduce, t.MeanOp: _reduce, t.AmaxOp: _reduce, t.SoftmaxOp: _softmax}


@dataclass(frozen=True)
class DecomposeReductions(ModulePass):
    """Rewrite torch.sum / mean / amax / softmax into `tensor.reduce` and elementwise ops.

    A reduction keeps its reduced dims with extent 1 and, without `keepdim`, drops them with an
    index_map; mean multiplies by 1/N. Softmax is max-reduce, broadcast, exp(x - max),
    sum-reduce, broadcast, divide.
    """

    name = "decompose-reductions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decompose(op, RULES)
