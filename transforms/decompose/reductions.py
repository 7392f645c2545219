"""decompose-reductions: torch's reductions and softmaxes become `tensor.reduce` chains."""

from __future__ import annotations

import math as pymath
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, math
from xdsl.dialects.builtin import IndexType, IntegerType, ModuleOp, i32, i64
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.passes import ModulePass

from dpl.dialects import torch as t
from dpl.dialects.tensor import ReduceKind
from dpl.transforms.decompose.common import Emitter, Scalar, decompose, elem_of, is_float, shape_of

_KIND = {
    t.SumOp: ReduceKind.SUM, t.MeanOp: ReduceKind.SUM, t.AmaxOp: ReduceKind.MAX,
    t.AminOp: ReduceKind.MIN, t.ProdOp: ReduceKind.PROD,
}  # fmt: skip


def _dims(op) -> list[int]:
    return [d.data for d in op.dims] or list(range(len(shape_of(op.input))))


def _count(shape, dims) -> int:
    return pymath.prod(shape[d] for d in dims)


def _finish(op, em: Emitter, red: SSAValue, dims) -> SSAValue:
    """Drop the reduced unit dims unless the op keeps them."""
    return red if op.keepdim.value.data else em.squeeze(red, dims)


def _reduce(op, em: Emitter):
    shape, dims = shape_of(op.input), _dims(op)
    red = em.reduce(_KIND[type(op)], op.input, dims)
    if isinstance(op, t.MeanOp):
        count = _count(shape, dims)
        red = em.unary(red, lambda s, a: s.mul(a, s.const(1.0 / count)))
    return _finish(op, em, red, dims)


def _stable_max(em: Emitter, x, dims):
    """max over dims, 0 where it is infinite (so x - m never computes inf - inf)."""
    mx = em.reduce(ReduceKind.MAX, x, dims, "max")

    def finite(s: Scalar, m):
        inf = s.cmp("eq", s.abs(m), s.const(pymath.inf))
        return s.select(inf, s.const(0.0), m)

    return em.unary(mx, finite, hint="max")


def _logsumexp(op: t.LogsumexpOp, em: Emitter):
    """m + log(sum(exp(x - m))), m the max (0 where infinite), as ATen computes it."""
    x, shape, dims = op.input, shape_of(op.input), _dims(op)
    m = _stable_max(em, x, dims)
    e = em.binary(x, em.broadcast(m, shape), lambda s, a, b: s.unary(math.ExpOp, s.sub(a, b)), hint="exp")
    total = em.reduce(ReduceKind.SUM, e, dims, "sum")
    out = em.binary(total, m, lambda s, a, b: s.add(s.unary(math.LogOp, a), b))
    return _finish(op, em, out, dims)


def _any_all(op, em: Emitter):
    """The bools as i32 0 / 1, max-reduced (any) or min-reduced (all), compared with 0."""
    dims = _dims(op)
    ints = em.unary(op.input, lambda s, a: s.bool_to(s.nonzero(a), i32), etype=i32, hint="flag")
    kind = ReduceKind.MAX if isinstance(op, t.AnyOp) else ReduceKind.MIN
    red = em.reduce(kind, ints, dims)
    flag = em.unary(red, lambda s, a: s.nonzero(a), etype=IntegerType(1))
    return _finish(op, em, flag, dims)


def _square(s: Scalar, a):
    return s.mul(a, a)


def _var(op, em: Emitter):
    """sum((x - mean)^2) / max(0, N - correction) (two passes, like layer_norm); std takes
    its square root."""
    x, shape, dims = op.input, shape_of(op.input), _dims(op)
    n = _count(shape, dims)
    total = em.reduce(ReduceKind.SUM, x, dims)
    mean = em.unary(total, lambda s, a: s.mul(a, s.const(1.0 / n)), hint="mean")
    sq = em.binary(x, em.broadcast(mean, shape), lambda s, a, m: _square(s, s.sub(a, m)), hint="sq")
    ss = em.reduce(ReduceKind.SUM, sq, dims)
    divisor = max(0.0, n - op.correction.value.data)

    def finish(s: Scalar, a):
        v = s.div(a, s.const(divisor))
        return s.unary(math.SqrtOp, v) if isinstance(op, t.StdOp) else v

    return _finish(op, em, em.unary(ss, finish, hint="var"), dims)


def _vector_norm(op: t.VectorNormOp, em: Emitter):
    """inf / -inf: max / min of |x|; 0: count of nonzeros; 1: sum |x|; 2: sqrt(sum x^2);
    else pow(sum |x|^p, 1/p)."""
    x, dims, p = op.input, _dims(op), op.ord.value.data
    if p in (pymath.inf, -pymath.inf):
        a = em.unary(x, lambda s, v: s.abs(v), hint="abs")
        red = em.reduce(ReduceKind.MAX if p > 0 else ReduceKind.MIN, a, dims)
        return _finish(op, em, red, dims)
    if p == 0:
        term = lambda s, v: s.bool_to(s.nonzero(v), v.type)  # noqa: E731
    elif p == 1:
        term = lambda s, v: s.abs(v)  # noqa: E731
    elif p == 2:
        term = lambda s, v: s.mul(v, v)  # noqa: E731
    else:
        term = lambda s, v: s.pow(s.abs(v), s.const(p))  # noqa: E731
    red = em.reduce(ReduceKind.SUM, em.unary(x, term, hint="term"), dims)
    if p == 2:
        red = em.unary(red, lambda s, a: s.unary(math.SqrtOp, a))
    elif p not in (0, 1):
        red = em.unary(red, lambda s, a: s.pow(a, s.const(1.0 / p)))
    return _finish(op, em, red, dims)


def _arg_extreme(op, em: Emitter):
    """The first index of the extreme: m = max (min) over the dims; each element whose value
    is m (or NaN, which PyTorch takes as the extreme) offers its index (row-major over all dims
    when reducing all), the others N; the smallest offer wins."""
    x, shape, dims = op.input, shape_of(op.input), _dims(op)
    is_max = isinstance(op, t.ArgmaxOp)
    ext = em.reduce(ReduceKind.MAX if is_max else ReduceKind.MIN, x, dims, "ext")
    n = _count(shape, dims)
    strides = {d: pymath.prod(shape[e] for e in dims if e > d) for d in dims}

    def offer(s: Scalar, a, m, *idx):
        hit = s.cmp("eq", a, m)
        if is_float(a.type):
            hit = s.op(arith.OrIOp(hit, s.op(arith.CmpfOp(a, a, "uno"))))
        pos = None
        for d in dims:
            term = idx[d] if strides[d] == 1 else s.op(arith.MuliOp(idx[d], s.const(strides[d], IndexType())))
            pos = term if pos is None else s.op(arith.AddiOp(pos, term))
        pos = s.const(0, i64) if pos is None else s.op(arith.IndexCastOp(pos, i64))  # no dims: a 0-d input's one element
        return s.select(hit, pos, s.const(n, i64))

    offers = em.elementwise([x, em.broadcast(ext, shape)], i64, shape, offer, with_indices=True, hint="offer")
    return _finish(op, em, em.reduce(ReduceKind.MIN, offers, dims), dims)


def _cumsum(op: t.CumsumOp, em: Emitter):
    """On the box [.., i, j, ..] (j inserted after dim i): x[.., j, ..] where j <= i, else 0,
    sum-reduced over j. O(n^2) along the dim, no sequential scan."""
    x, shape, dim = op.input, shape_of(op.input), op.dim.data
    n = shape[dim]
    box = [*shape[: dim + 1], n, *shape[dim + 1 :]]
    exprs = [AffineExpr.dimension(k if k <= dim else k + 1) for k in range(len(shape))]
    exprs[dim] = AffineExpr.dimension(dim + 1)
    xj = em.map_exprs(x, exprs, box, "xj")

    def upto(s: Scalar, a, *idx):
        keep = s.cmpi("ule", idx[dim + 1], idx[dim])
        return s.select(keep, a, s.const(0, a.type))

    terms = em.elementwise([xj], elem_of(x), box, upto, with_indices=True, hint="upto")
    return em.squeeze(em.reduce(ReduceKind.SUM, terms, [dim + 1]), [dim + 1])


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


def _log_softmax(op: t.LogSoftmaxOp, em: Emitter):
    """(x - max) - log(sum(exp(x - max))) along `dim`."""
    x, shape, dim = op.input, shape_of(op.input), op.dim.data
    mx = em.reduce(ReduceKind.MAX, x, [dim], "max")
    shifted = em.binary(x, em.broadcast(mx, shape), lambda s, a, m: s.sub(a, m), hint="shifted")
    e = em.unary(shifted, lambda s, a: s.unary(math.ExpOp, a), hint="exp")
    total = em.reduce(ReduceKind.SUM, e, [dim], "sum")
    return em.binary(shifted, em.broadcast(total, shape), lambda s, a, b: s.sub(a, s.unary(math.LogOp, b)))


RULES = {
    **{cls: _reduce for cls in _KIND},
    t.LogsumexpOp: _logsumexp,
    t.AnyOp: _any_all,
    t.AllOp: _any_all,
    t.VarOp: _var,
    t.StdOp: _var,
    t.VectorNormOp: _vector_norm,
    t.ArgmaxOp: _arg_extreme,
    t.ArgminOp: _arg_extreme,
    t.CumsumOp: _cumsum,
    t.SoftmaxOp: _softmax,
    t.LogSoftmaxOp: _log_softmax,
}


@dataclass(frozen=True)
class DecomposeReductions(ModulePass):
    """Rewrite torch's reductions (sum, mean, amax, amin, prod, logsumexp, any, all, var, std,
    vector_norm, argmax, argmin, cumsum) and softmax / log_softmax into `tensor.reduce` and
    elementwise ops.

    A reduction keeps its reduced dims with extent 1 and, without `keepdim`, drops them with an
    index_map; mean multiplies by 1/N. Softmax is max-reduce, broadcast, exp(x - max),
    sum-reduce, broadcast, divide. argmax/argmin reduce twice: the extreme, then the smallest
    index holding it (an i64 min-reduce). any/all reduce 0/1 as i32 (max / min) and compare with
    0. logsumexp and var follow ATen's formulas (max-shifted; two-pass variance). cumsum sums
    the masked row `j <= i` for each i (quadratic along its dim).
    """

    name = "decompose-reductions"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decompose(op, RULES)
