"""decompose-matmul: torch.matmul and torch.linear become broadcast-multiply-reduce."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.passes import ModulePass

from dpl.dialects import torch as t
from dpl.transforms.decompose.common import Emitter, _broadcast_shape, decompose, shape_of

d = AffineExpr.dimension


def batch_exprs(src: Sequence[int], batch: Sequence[int]) -> list[AffineExpr]:
    """Index a source's batch dims from the (right-aligned, broadcast) batch dims of the box."""
    lead = len(batch) - len(src)
    return [
        AffineExpr.constant(0) if n == 1 and batch[lead + i] != 1 else d(lead + i)
        for i, n in enumerate(src)
    ]


def matmul(em: Emitter, a: SSAValue, b: SSAValue, hint=None) -> SSAValue:
    """torch.matmul(a, b): map both onto the box [*batch, M, K, N], multiply, sum over K."""
    sa, sb = shape_of(a), shape_of(b)
    a_batch, b_batch = sa[:-2], sb[:-2]
    batch = _broadcast_shape(a_batch, b_batch)
    nb = len(batch)
    full = list(batch)
    if len(sa) >= 2:
        m = d(len(full))
        full.append(sa[-2])
    k_axis = len(full)
    full.append(sa[-1])
    if len(sb) >= 2:
        n = d(len(full))
        full.append(sb[-1])
    k = d(k_axis)
    a_exprs = batch_exprs(a_batch, batch) + ([m, k] if len(sa) >= 2 else [k])
    b_exprs = batch_exprs(b_batch, batch) + ([k, n] if len(sb) >= 2 else [k])
    del nb
    return em.contract(a, a_exprs, b, b_exprs, full, k_axis, hint)


def _matmul(op: t.MatmulOp, em: Emitter):
    return matmul(em, op.lhs, op.rhs)


def _linear(op: t.LinearOp, em: Emitter):
    """input [*lead, K] @ weight[N, K]^T on the box [*lead, K, N] (+ bias)."""
    sx, sw = shape_of(op.input), shape_of(op.weight)
    nl = len(sx) - 1
    full = [*sx[:-1], sx[-1], sw[0]]
    x_exprs = [d(i) for i in range(nl + 1)]
    w_exprs = [d(nl + 1), d(nl)]
    out = em.contract(op.input, x_exprs, op.weight, w_exprs, full, nl, "mm" if op.bias else None)
    if op.bias is not None:
        out = em.binary(out, op.bias, lambda s, a, b: s.add(a, b), shape=shape_of(op.result))
    return out


RULES = {t.MatmulOp: _matmul, t.LinearOp: _linear}


@dataclass(frozen=True)
class DecomposeMatmul(ModulePass):
    """Rewrite torch.matmul (batch broadcasting, 1-D operands) and torch.linear.

    Both operands are index-mapped onto the box [*batch, M, K, N], multiplied elementwise and
    sum-reduced over K (kept with extent 1), and an index_map drops the unit K dim, as in the
    seeds' Tensor IR. linear reads weight[N, K] transposed and adds the broadcast bias.
    """

    name = "decompose-matmul"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        decompose(op, RULES)
