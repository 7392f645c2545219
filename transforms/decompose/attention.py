"""decompose-attention: torch.scaled_dot_product_attention as matmuls, a mask and a softmax."""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import IntegerType, ModuleOp
from xdsl.ir.affine import AffineExpr
from xdsl.passes import ModulePass

from dpl.dialects import torch as t
from dpl.transforms.decompose.common import Emitter, decompose, elem_of, shape_of
from dpl.transforms.decompose.reductions import softmax

d = AffineExpr.dimension


def _sdpa(op: t.ScaledDotProductAttentionOp, em: Emitter):
    q, k, v = op.query, op.key, op.value
    sq, sk, sv = shape_of(q), shape_of(k), shape_of(v)
    r = len(sq)
    nb = r - 2  # batch dims, heads included
    group = sq[-3] // sk[-3] if r >= 3 else 1

    def kv_batch() -> list[AffineExpr]:
        exprs = [d(i) for i in range(nb)]
        if group != 1:  # GQA: query head h reads key/value head h floordiv group
            exprs[-1] = exprs[-1] // group
        return exprs

    L, E, S, Ev = sq[-2], sq[-1], sk[-2], sv[-1]
    batch = list(sq[:-2])
    # scores[.., l, s] = sum_e q[.., l, e] * k[.., s, e] on the box [.., L, E, S]
    scores = em.contract(
        q, [*[d(i) for i in range(nb)], d(nb), d(nb + 1)],
        k, [*kv_batch(), d(nb + 2), d(nb + 1)],
        [*batch, L, E, S], nb + 1, "scores",
    )
    shape = [*batch, L, S]
    scale = op.scale.value.data
    etype = elem_of(q)
    if op.is_causal.value.data:
        def causal(s, a, *idx):
            masked = s.cmpi("ugt", idx[-1], idx[-2])  # key position after query position
            return s.select(masked, s.const(float("-inf")), s.mul(a, s.const(scale)))

        scores = em.elementwise([scores], etype, shape, causal, with_indices=True, hint="masked")
    elif op.attn_mask is not None:
        mask = em.broadcast(op.attn_mask, shape)
        if isinstance(elem_of(mask), IntegerType):  # boolean: True means attend
            def fn(s, a, m):
                return s.select(m, s.mul(a, s.const(scale)), s.const(float("-inf")))
        else:
            def fn(s, a, m):
                return s.add(s.mul(a, s.const(scale)), m)
        scores = em.elementwise([scores, mask], etype, shape, fn, hint="masked")
    else:
        scores = em.unary(scores, lambda s, a: s.mul(a, s.const(scale)), hint="scaled")
    probs = softmax(em, scores, r - 1)
    # out[.., l, ev] = sum_s p[.., l, s] * v[.., s, ev] on the box [.., L, S, Ev]
    return em.contract(
        probs, [*[d(i) for i in range(nb)], d(nb), d(nb + 1)],
        v, [*kv_batch(), d(nb + 1), d(nb + 2)],
        [*batch, L, S, Ev], nb + 1,
    )


RULES = {t.ScaledDotProductAttentionOp: _sdpa}


@dataclass(frozen=True)
class DecomposeAttention(ModulePass):
    """Rewrite torch.scaled_dot_product_attention into matmul patterns, a mask and a softmax.

    scores = q @ k^T on the box [.., L, E, S] (reduce E), times `scale`; `is_causal` masks
    key positions after the query position with -inf in an elementwise op `with_indices`; an
    `attn_mask` is added (float) or selects (bool); softmax over S; then @ v on [.., L, S, Ev].
    With GQA, key/value head h' = h floordiv (Hq/Hk) is read through the index_map.
    """

    name = "decompose-attention"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decompose(op, RULES)
