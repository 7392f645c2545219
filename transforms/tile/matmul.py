"""Matmul recognition and index rewriting shared by the matmul scheduling passes.

A tile is a *matmul* when its body holds exactly one top-level `loop.for reduce` (K, or K-outer
once chunk-matmul-k ran) folding with `add`, and no top-level free loop (a row's normalizing loop:
StyleGAN2's demodulation sums (w[o, i] s[b, i])^2 over i, two loads with axes of their own, then
scales the row; a norm, not a matmul), and inside the reduce two loads A and B that both use the
reduce index and each depend on a non-block tile axis the other does not: A's own axes are the
M axes, B's the N axes (`x[m, k] * w[k, n]`, `x[m, k] * W[n, k]`, batched alike). Each A value is
then reused across N and each B value across M, which is what register tiles and shared-memory
stages exploit; cooperative-reduce has nothing to share (the reduce uses every thread axis), so
the K reduce stays sequential per thread.

`matmul_info` / `is_matmul_kernel` are the entry points for the passes (and a per-class
scheduler). The index helpers read an access (`loop.load` / `loop.store` / `tile.atomic`) as one
linear form per index, seeing through `affine.apply` and constants, and write it back as a plain
index map (`%x[%a0_b * 64 + %a0_t * 4 + %a0_c, %ko * 32 + %ki]`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr
from xdsl.ir import Block, Operation, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)

from dpl.dialects import loop, tile
from dpl.transforms.tile.common import (
    Linear,
    axis_deps,
    const_index,
    linear,
    flat_offset,
    simplify_map,
    tiles,
    with_map,
)

ACCESSES = (loop.LoadOp, loop.StoreOp, tile.AtomicOp)


# --------------------------------------------------------------------------------------------
# Accesses as linear forms


def value_form(v: SSAValue) -> Linear:
    """`v` as a linear form over non-`affine.apply`, non-constant values."""
    c = const_index(v)
    if c is not None:
        return {}, c
    owner = v.owner
    if isinstance(owner, affine.ApplyOp) and len(owner.map.data.results) == 1:
        operands = list(owner.mapOperands)
        form = linear(owner.map.data.results[0], operands)
        if form is not None:
            return substitute(form, {o: value_form(o) for o in operands})
    return {v: 1}, 0


def substitute(form: Linear, forms: dict[SSAValue, Linear]) -> Linear:
    """Replace each value of `form` that `forms` names by its form."""
    terms: dict[SSAValue, int] = {}
    const = form[1]
    for v, c in form[0].items():
        sub = forms.get(v, ({v: 1}, 0))
        for w, d in sub[0].items():
            terms[w] = terms.get(w, 0) + c * d
        const += c * sub[1]
    return {v: c for v, c in terms.items() if c}, const


def access_forms(op: Operation) -> list[Linear] | None:
    """One linear form per index of a load / store / atomic, or None if one is not linear."""
    forms = dim_forms(op)
    return None if any(f is None for f in forms) else forms  # type: ignore[return-value]


def dim_forms(op: Operation) -> list[Linear | None]:
    """One linear form per index of a load / store / atomic, None for an index that is not
    linear (`%k floordiv 128`)."""
    assert isinstance(op, ACCESSES)
    indices = list(op.indices)
    forms: list[Linear | None] = []
    for expr in op.map.data.results:
        form = linear(expr, indices)
        forms.append(None if form is None else substitute(form, {v: value_form(v) for v in form[0]}))
    return forms


def merged_forms(op: Operation) -> tuple[list[Linear | None], list[int]]:
    """`dim_forms` of an access and its buffer's shape, with each pair of adjacent dims indexed
    `e floordiv n, e mod n` (n the second dim's size, e linear) read as one dim of size
    shape[d] x n indexed by e: a row-major buffer lays the pair out as that one dim, the offset
    `(e floordiv n) * n + e mod n` being e (merge-columns writes such pairs: `%x[%a0, %r,
    %m floordiv 5, %m mod 5]` of a memref<71x79x128x5xf32> reads as `[%a0, %r, %m]` of 71 x 79 x
    640)."""
    assert isinstance(op, ACCESSES)
    forms = dim_forms(op)
    shape = list(op.memref.type.get_shape())  # type: ignore[union-attr]
    exprs = op.map.data.results
    out_forms: list[Linear | None] = []
    out_shape: list[int] = []
    d = 0
    while d < len(exprs):
        e = _delinearized(exprs[d], exprs[d + 1], shape[d + 1]) if d + 1 < len(exprs) else None
        form = None if e is None else linear(e, list(op.indices))
        if form is not None:
            out_forms.append(substitute(form, {v: value_form(v) for v in form[0]}))
            out_shape.append(shape[d] * shape[d + 1])
            d += 2
        else:
            out_forms.append(forms[d])
            out_shape.append(shape[d])
            d += 1
    return out_forms, out_shape


def _delinearized(hi: AffineExpr, lo: AffineExpr, n: int) -> AffineExpr | None:
    """e where `hi` is `e floordiv n` and `lo` is `e mod n`, else None."""
    if not (isinstance(hi, AffineBinaryOpExpr) and isinstance(lo, AffineBinaryOpExpr)):
        return None
    if (hi.kind, lo.kind) != (AffineBinaryOpKind.FloorDiv, AffineBinaryOpKind.Mod) or hi.lhs != lo.lhs:
        return None
    if not all(isinstance(x.rhs, AffineConstantExpr) and x.rhs.value == n for x in (hi, lo)):
        return None
    return hi.lhs


def dim_values(op: Operation, dim: int) -> set[SSAValue]:
    """The index values that index `dim` of an access uses."""
    assert isinstance(op, ACCESSES)
    amap = op.map.data
    used = AffineMap(amap.num_dims, amap.num_symbols, (amap.results[dim],)).used_dims()
    return {op.indices[d] for d in used}


def form_expr(form: Linear, order: Sequence[SSAValue]) -> AffineExpr:
    """The expression of `form` with values as dims in `order`, largest coefficient first."""
    terms = sorted(form[0].items(), key=lambda t: (-abs(t[1]), order.index(t[0])))
    expr: AffineExpr | None = None
    for v, c in terms:
        term = AffineDimExpr(order.index(v))
        if c != 1:
            term = term * c
        expr = term if expr is None else expr + term
    if expr is None:
        return AffineConstantExpr(form[1])
    return expr + form[1] if form[1] else expr


def set_access(op: Operation, forms: Sequence[Linear | None]) -> Operation:
    """Replace an access by the same access at `forms`; return the new op. A None form keeps
    that index's expression as it is."""
    assert isinstance(op, ACCESSES)
    order: list[SSAValue] = []
    if any(f is None for f in forms):
        order = list(op.indices)  # kept expressions name the old operands by position
    for f in forms:
        for v, _ in sorted(f[0].items(), key=lambda t: -abs(t[1])) if f is not None else ():
            if v not in order:
                order.append(v)
    old = op.map.data.results
    exprs = tuple(old[i] if f is None else form_expr(f, order) for i, f in enumerate(forms))
    return with_map(op, order, AffineMap(len(order), 0, exprs))


def fold_applies(root: Operation) -> None:
    """Fold `affine.apply` index values into the maps of the accesses under `root` and erase
    applies left unused."""
    for op in [o for o in root.walk() if isinstance(o, ACCESSES)]:
        if any(isinstance(v.owner, affine.ApplyOp) for v in op.indices):
            forms = access_forms(op)
            if forms is not None:
                set_access(op, forms)
            else:
                compose_applies(op)
    changed = True
    while changed:
        changed = False
        for op in list(root.walk()):
            if isinstance(op, affine.ApplyOp) and not op.result.uses:
                op.detach()
                op.erase()
                changed = True


def compose_applies(op: Operation) -> None:
    """Substitute the `affine.apply` operands of an access into its (non-linear) map, then
    simplify its floordiv / mod with the loop bounds (`simplify_map`: after chunk-matmul-k,
    `(%ko * 32 + %ki) floordiv 128` is `%ko floordiv 4`). A flat access (collapse-pointwise's
    `[%f floordiv 16411, %f mod 16411]`, `common.flat_offset`) is left as composed, so that it
    stays one flat offset (flatten-buffers reads it so after materialize), and so is one with a
    pair of dims `e floordiv n, e mod n` (merge-columns'; `merged_forms` reads it as one dim)."""
    assert isinstance(op, ACCESSES)
    shape = op.memref.type.get_shape()  # type: ignore[union-attr]
    results = op.map.data.results
    flat = len(shape) > 1 and (
        flat_offset(results, shape) is not None
        or any(_delinearized(results[d], results[d + 1], shape[d + 1]) is not None for d in range(len(shape) - 1))
    )
    while True:
        indices = list(op.indices)
        pos = next((i for i, v in enumerate(indices) if isinstance(v.owner, affine.ApplyOp)), None)
        if pos is None:
            break
        apply = indices[pos].owner
        assert isinstance(apply, affine.ApplyOp)
        amap = op.map.data
        operands = [v for i, v in enumerate(indices) if i != pos]
        for v in apply.mapOperands:
            if v not in operands:
                operands.append(v)
        dims = [AffineDimExpr(operands.index(v)) for v in apply.mapOperands]
        inner = apply.map.data.replace_dims_and_symbols(dims, [], len(operands), 0).results[0]
        new_dims = [
            inner if i == pos else AffineDimExpr(operands.index(v)) for i, v in enumerate(indices)
        ]
        op = with_map(op, operands, amap.replace_dims_and_symbols(new_dims, [], len(operands), 0))
    simple = op.map.data if flat else simplify_map(op.map.data, list(op.indices))
    if simple != op.map.data:
        with_map(op, list(op.indices), simple)


def rewrite_value(block: Block, old: SSAValue, form: Linear, before: Operation | None) -> None:
    """Replace every use of `old` by `form` (which may use `old` itself): an `affine.apply` placed
    first in `block` (or before `before`), folded into the accesses of `block`'s op."""
    order = list(form[0])
    apply = affine.ApplyOp(order, AffineMapAttr(AffineMap(len(order), 0, (form_expr(form, order),))))
    apply.result.name_hint = old.name_hint
    if before is None:
        if block.first_op is None:
            block.add_op(apply)
        else:
            block.insert_op_before(apply, block.first_op)
    else:
        block.insert_op_before(apply, before)
    old.replace_uses_with_if(apply.result, lambda use: use.operation is not apply)
    fold_applies(block.parent_op() or apply)


# --------------------------------------------------------------------------------------------
# Recognition


@dataclass
class MatmulInfo:
    """What the matmul passes need to know about a matmul tile."""

    tile: tile.TileOp
    reduce: loop.ForOp
    """The top-level reduce: K, or K-outer when `inner` is set."""
    inner: loop.ForOp | None
    """The K-inner reduce directly inside `reduce` (after chunk-matmul-k), else None."""
    a: loop.LoadOp
    b: loop.LoadOp
    m_axes: list[SSAValue]
    """Non-block tile axes that A depends on and B does not (tile order)."""
    n_axes: list[SSAValue]

    @property
    def k_ivs(self) -> list[SSAValue]:
        return [self.reduce.iv] + ([self.inner.iv] if self.inner is not None else [])


def _dims(expr: AffineExpr) -> set[int]:
    if isinstance(expr, AffineDimExpr):
        return {expr.position}
    if isinstance(expr, AffineBinaryOpExpr):
        return _dims(expr.lhs) | _dims(expr.rhs)
    return set()


def _uses(op: loop.LoadOp) -> set[SSAValue]:
    """The values an access's indices really use (a map may take operands it ignores)."""
    forms = access_forms(op)
    values: set[SSAValue] = set()
    if forms is None:
        for expr in op.map.data.results:
            for d in _dims(expr):
                values |= set(value_form(op.indices[d])[0])
    else:
        for terms, _ in forms:
            values |= set(terms)
    return values


def matmul_info(t: tile.TileOp) -> MatmulInfo | None:
    """The matmul structure of a tile, or None when it is not a matmul (see the module doc)."""
    if any(isinstance(o, (tile.StridedForOp, tile.CombineOp)) for o in t.walk()):
        return None
    reduces = [o for o in t.body.block.ops if isinstance(o, loop.ForOp) and o.is_reduce]
    if len(reduces) != 1 or any(isinstance(o, loop.ForOp) and not o.is_reduce for o in t.body.block.ops):
        return None  # (a free loop beside the reduce: a norm's normalizing loop over its row)
    reduce = reduces[0]
    acc = reduce.body.block.last_op
    if not isinstance(acc, loop.AccumulateOp) or any(
        k.data != loop.CombineKind.ADD for k in acc.kinds
    ):
        return None
    inners = [o for o in reduce.body.block.ops if isinstance(o, loop.ForOp) and o.is_reduce]
    inner = inners[0] if len(inners) == 1 else None
    k_ivs = {reduce.iv} | ({inner.iv} if inner is not None else set())
    axes = [v for v, _, k in t.axes if k != tile.AxisKind.BLOCK]
    deps = axis_deps(t)
    loads = []
    for ld in reduce.walk():
        if not isinstance(ld, loop.LoadOp):
            continue
        used = _uses(ld)
        if not used & k_ivs:
            continue
        own: set[SSAValue] = set()
        for v in used:
            own |= deps(v)
        own &= set(axes)
        if own:
            loads.append((ld, own))
    for i, (a, ua) in enumerate(loads):
        for b, ub in loads[i + 1 :]:
            if ua - ub and ub - ua:
                m = [v for v in axes if v in ua - ub]
                n = [v for v in axes if v in ub - ua]
                if axes.index(m[0]) > axes.index(n[0]):
                    a, b, m, n = b, a, n, m
                return MatmulInfo(t, reduce, inner, a, b, m, n)
    return None


def is_matmul_kernel(op: Operation) -> bool:
    """Whether a `tile.kernel` (or `tile.tile`) is a matmul: one K reduce over A[M, K] and B[K, N]."""
    if isinstance(op, tile.KernelOp):
        op = op.tile
    return isinstance(op, tile.TileOp) and matmul_info(op) is not None


def kernel_name(t: tile.TileOp) -> str:
    kernel = t.parent_op()
    return f"@{kernel.sym_name.data}" if isinstance(kernel, tile.KernelOp) else "tile"


def for_each_tile(module: Operation, fn: Callable[[tile.TileOp], str | None]) -> list[tuple[str, str | None]]:
    """Run `fn` on every tile; (kernel name, reason it declined or None) per tile."""
    return [(kernel_name(t), fn(t)) for t in tiles(module)]
