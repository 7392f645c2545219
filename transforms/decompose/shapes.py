"""decompose-shapes: torch's view/shape ops become `tensor.index_map` (and gather / scatter /
concat)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir.affine import AffineExpr
from xdsl.passes import ModulePass

from dpl.dialects import tensor as T
from dpl.dialects import torch as t
from dpl.transforms.decompose.common import Emitter, decompose, shape_of

d = AffineExpr.dimension


def _groups(src: Sequence[int], out: Sequence[int]):
    """Split both shapes into consecutive groups of equal element count (unit dims alone)."""
    groups, i, j = [], 0, 0
    while i < len(src) or j < len(out):
        if i < len(src) and src[i] == 1 and (j >= len(out) or out[j] != 1):
            groups.append(([i], []))
            i += 1
            continue
        if j < len(out) and out[j] == 1 and (i >= len(src) or src[i] != 1):
            groups.append(([], [j]))
            j += 1
            continue
        gi, gj = [i], [j]
        ps, po = src[i], out[j]
        i, j = i + 1, j + 1
        while ps != po:
            if ps < po:
                ps *= src[i]
                gi.append(i)
                i += 1
            else:
                po *= out[j]
                gj.append(j)
                j += 1
        groups.append((gi, gj))
    return groups


def reshape_exprs(src: Sequence[int], out: Sequence[int]) -> list[AffineExpr]:
    """Source indices of a row-major reshape, linearising and splitting only within groups."""
    exprs: list[AffineExpr | None] = [None] * len(src)
    for gi, gj in _groups(src, out):
        if not gj:  # a unit source dim with no output counterpart
            exprs[gi[0]] = AffineExpr.constant(0)
            continue
        if not gi:
            continue
        if len(gi) == 1 and len(gj) == 1:
            exprs[gi[0]] = d(gj[0])
            continue
        lin: AffineExpr = AffineExpr.constant(0)
        for jj in gj:
            lin = lin * out[jj] + d(jj)
        stride = 1
        for ii in reversed(gi):
            e = lin if stride == 1 else lin // stride
            if ii != gi[0]:
                e = e % src[ii]
            exprs[ii] = e
            stride *= src[ii]
    return [e for e in exprs]  # type: ignore[misc]


def _reshape(op, em: Emitter):
    src, out = shape_of(op.input), shape_of(op.result)
    return em.map_exprs(op.input, reshape_exprs(src, out), out)


def _permute_with(op, em: Emitter, perm: Sequence[int]):
    """out dim i is source dim perm[i]: source dim perm[i] is indexed by d_i."""
    exprs: list[AffineExpr] = [AffineExpr.constant(0)] * len(perm)
    for i, p in enumerate(perm):
        exprs[p] = d(i)
    return em.map_exprs(op.input, exprs, shape_of(op.result))


def _transpose(op: t.TransposeOp, em: Emitter):
    perm = list(range(len(shape_of(op.input))))
    a, b = op.dim0.data, op.dim1.data
    perm[a], perm[b] = perm[b], perm[a]
    return _permute_with(op, em, perm)


def _permute(op: t.PermuteOp, em: Emitter):
    return _permute_with(op, em, [p.data for p in op.dims])


def _unsqueeze(op: t.UnsqueezeOp, em: Emitter):
    out = shape_of(op.result)
    k = op.dim.data
    return em.map_exprs(op.input, [d(i) for i in range(len(out)) if i != k], out)


def _expand(op: t.ExpandOp, em: Emitter):
    return em.broadcast(op.input, shape_of(op.result))


def _slice(op: t.SliceOp, em: Emitter):
    src = shape_of(op.input)
    k, start, step = op.dim.data, op.start.data, op.step.data
    exprs = [d(i) for i in range(len(src))]
    exprs[k] = d(k) * step + start
    return em.map_exprs(op.input, exprs, shape_of(op.result))


def _cat(op: t.CatOp, em: Emitter):
    inputs = [v for v in op.inputs if shape_of(v)[op.dim.data] != 0]
    if len(inputs) == 1:
        return inputs[0]
    return em._one(T.ConcatOp(inputs, op.dim.data))


def _embedding(op: t.EmbeddingOp, em: Emitter):
    return em._one(T.GatherOp(op.weight, op.indices, 0))


def _index_select(op: t.IndexSelectOp, em: Emitter):
    return em._one(T.GatherOp(op.input, op.index, op.dim.data))


#: torch.scatter_reduce's reductions: the tensor.scatter kind and how the input combines with it.
_SCATTER = {"sum": (T.ReduceKind.SUM, "add"), "amax": (T.ReduceKind.MAX, "max"), "amin": (T.ReduceKind.MIN, "min")}


def _scatter_reduce(op: t.ScatterReduceOp, em: Emitter):
    kind, combine = _SCATTER[op.reduce.data]
    folded = em._one(T.ScatterOp(kind, op.src, op.index, op.dim.data, op.result.type), "scattered")
    return em.binary(op.input, folded, lambda s, a, b: getattr(s, combine)(a, b))


def _flip(op: t.FlipOp, em: Emitter):
    src = shape_of(op.input)
    flipped = {f.data for f in op.dims}
    exprs = [d(i) * -1 + (n - 1) if i in flipped else d(i) for i, n in enumerate(src)]
    return em.map_exprs(op.input, exprs, src)


def _linear(const: int, terms: Sequence[tuple[int, int]]) -> AffineExpr:
    """const + sum coeff * d_i over (i, coeff) in terms."""
    e = AffineExpr.constant(const)
    for i, coeff in terms:
        if coeff:
            e = e + d(i) * coeff
    return e


def _peak(const: int, terms: Sequence[tuple[int, int]], size: Sequence[int]) -> int:
    """The largest value of const + sum coeff * d_i (coefficients >= 0, d_i < size[i])."""
    return const + sum(coeff * (size[i] - 1) for i, coeff in terms)


def _as_strided(op: t.AsStridedOp, em: Emitter):
    """The view's flat position p = offset + sum d_i stride_i, unflattened over input's shape:
    index k is (p floordiv inner_k) mod n_k. Where the dims' ranges allow, the floordiv and mod
    are taken term by term (p = inner (sum q_i d_i) + rest with 0 <= rest < inner: the quotient
    is sum q_i d_i; a sum of coefficients mod n below n is the remainder), so a view that walks
    input's own dims (windows along a row) reads them without division."""
    src, out = shape_of(op.input), shape_of(op.result)
    offset, terms = op.offset.data, [(i, s.data) for i, s in enumerate(op.stride.data)]
    exprs = []
    for k, n in enumerate(src):
        inner = math.prod(src[k + 1 :])
        rest = [(i, c % inner) for i, c in terms]
        if _peak(offset % inner, rest, out) < inner:
            q_const, q_terms = offset // inner, [(i, c // inner) for i, c in terms]
            e = _linear(q_const, q_terms)
            if k and _peak(q_const, q_terms, out) >= n:
                m_const, m_terms = q_const % n, [(i, c % n) for i, c in q_terms]
                e = _linear(m_const, m_terms) if _peak(m_const, m_terms, out) < n else e % n
        else:
            e = _linear(offset, terms) // inner
            e = e % n if k else e
        exprs.append(e)
    return em.map_exprs(op.input, exprs, out)


RULES = {
    t.ReshapeOp: _reshape,
    t.TransposeOp: _transpose,
    t.PermuteOp: _permute,
    t.UnsqueezeOp: _unsqueeze,
    t.ExpandOp: _expand,
    t.SliceOp: _slice,
    t.CatOp: _cat,
    t.EmbeddingOp: _embedding,
    t.IndexSelectOp: _index_select,
    t.ScatterReduceOp: _scatter_reduce,
    t.FlipOp: _flip,
    t.AsStridedOp: _as_strided,
}


@dataclass(frozen=True)
class DecomposeShapes(ModulePass):
    """Rewrite reshape / transpose / permute / unsqueeze / expand / slice / flip / as_strided / cat /
    embedding / index_select / scatter_reduce.

    The view ops become one `tensor.index_map` each: reshape linearises and splits indices only
    inside groups of dims with equal element count (so [1,32,2048] -> [32,2048] is a plain
    projection); slice is `start + step * d`; flip is `n - 1 - d`; expand is a broadcast. cat
    becomes `tensor.concat`, embedding `tensor.gather` on axis 0 and index_select on its dim;
    scatter_reduce is the input combined (add, max, min) with a `tensor.scatter` (the combiner's
    identity with the source folded in).
    """

    name = "decompose-shapes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decompose(op, RULES)
