"""tensorize-matmul: put a matmul tile on the tensor cores (the mma dialect's tile-level ops).

Input: a matmul tile (`dpl.transforms.tile.matmul`) whose K is chunked by 32 (chunk-matmul-k;
split-matmul-k may have added a split block axis), with M and N each on one thread axis of
extent > 1 (tileify; extent-1 axes may sit beside them):

    tile.tile (%a0 : 128 = thread, %a1 : 256 = thread) {
      %acc = loop.for reduce %ko < 16 -> f32 {
        %acc_k = loop.for reduce %ki < 32 -> f32 { ... A(%a0, k) * B(%a1, k) ... }
        loop.accumulate add %acc_k : f32
      }
      ...epilogue of %acc at (%a0, %a1)...
    }
->
    tile.tile (%bm : M/BM = block, %bn : N/BN = block, %wg : 2 = thread, %w : 4 = thread,
               %g : 8 = thread, %t : 4 = thread, %h : 2 = cell, %j : 32 = cell, %e : 2 = cell) {
      %acc = loop.for reduce %ko < 16 -> f32 {
        %a = mma.stage rows 128 k 32 { ^bb0(%r, %c): A(%bm * 128 + %r, %ko * 32 + %c) }
        %b = mma.stage rows 256 k 32 { ^bb0(%r, %c): B(%bn * 256 + %r, %ko * 32 + %c) }
        %p = mma.dot %a[<row>], %b[<col>] precision "3xtf32" layout wgmma promote 4
        loop.accumulate add %p : f32
      }
      ...the same epilogue at (%bm * 128 + <row>, %bn * 256 + <col>)...
    }

where <row>, <col> are the layout's fragment (`mma.fragment_exprs`: for wgmma
`64 wg + 16 w + 8 h + g` and `8 j + 2 t + e`). The product in the K-inner body is split at its
`arith.mulf`s into factors that do not depend on N (A: M, K, uniform) and factors that depend
on N but not M (B), keeping one-sided subexpressions whole; each side's backward slice (loads, a norm's
`rsqrt` computed before the loop, index math) is cloned into its stage's region with m (or n)
= block offset + %r and the K-inner index = %c. So a norm's scale stays in the A prologue and a
weight stored [K, N] is read transposed by the B stage: both stages are K-major whatever the
global layout. The epilogue (bias, residual, silu(gate) * acc, split-K's atomic) is unchanged.
Meaning is kept up to the precision (`3xtf32`: fp32-level; `tf32` is less accurate).

Options: `layout` (wgmma | mma_sync), `bm`, `bn` (wgmma: bm a multiple of 64 up to 256, bn a
multiple of 8 up to 256; mma_sync: warps of 64 x 32, bm a multiple of 64, bn of 32),
`precision` (3xtf32 | tf32), `promote` (1, 2 or 4: the MMA steps of 8 per tensor-core
accumulation chain, recorded on the mma.dot; the tensor cores truncate every sum into their
accumulators, so a chain's error grows with its length: 4, one K step of 32, keeps 3xTF32 at
fp32's accuracy, see interpreters/tf32.py).

Declines (logged to `dpl.passes`): not a matmul tile; not f32; K not chunked by 32; M or N not one
thread axis of extent > 1, or not a multiple of bm / bn (pad-matmul rounds a ragged M, N and K up
first; its `{tile.masked}` accesses move into the stages and the epilogue as they are); a K-inner body that is not one
accumulated product; a factor that depends on both M and N; a slice holding a region op.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import AffineMapAttr, Float32Type, IndexType, ModuleOp
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import loop, mma, tile
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, rebuild_tile
from dpl.transforms.tile.matmul import fold_applies, for_each_tile, matmul_info
from dpl.transforms.tunable import tunable

K_STEP = 32
AK = tile.AxisKind


def fragment_axes(layout: mma.Layout, bm: int, bn: int) -> tuple[list[int], list[int]] | str:
    """(thread extents, cell extents) of the layout's fragment for a bm x bn tile, or why not."""
    if layout == mma.Layout.WGMMA:
        if bm % 64 or not 64 <= bm <= 256 or not mma.wgmma_n_ok(bn):
            return f"wgmma needs bm a multiple of 64 up to 256 and bn a multiple of 8 up to 256, got {bm} x {bn}"
        return mma.wgmma_axes(bm, bn)
    if bm % 64 or bn % 32 or (bm // 64) * (bn // 32) * 32 > tile.MAX_BLOCK_THREADS:
        return f"mma_sync needs bm a multiple of 64 and bn of 32 (warps of 64 x 32), got {bm} x {bn}"
    return mma.mma_sync_axes(bm // 64, bn // 32, 4, 4)


def _depends(v: SSAValue, target: SSAValue, memo: dict) -> bool:
    if v is target:
        return True
    if v in memo:
        return memo[v]
    memo[v] = False
    owner = v.owner
    result = False
    if isinstance(owner, Operation):
        result = any(_depends(o, target, memo) for inner in owner.walk() for o in inner.operands)
    memo[v] = result
    return result


def _split(v: SSAValue, body: Block, m_axis: SSAValue, n_axis: SSAValue, memo: tuple[dict, dict]):
    """`v` as (A factors, B factors, factors on both sides): a value that depends on N and not
    M is a B factor, one that does not depend on N an A factor; an `arith.mulf` of `body`
    that depends on both is split into its operands' factors."""
    dm, dn = _depends(v, m_axis, memo[0]), _depends(v, n_axis, memo[1])
    if not dn:
        return [v], [], []
    if not dm:
        return [], [v], []
    op = v.owner
    if isinstance(op, arith.MulfOp) and op.parent_block() is body:
        la, lb, lx = _split(op.lhs, body, m_axis, n_axis, memo)
        ra, rb, rx = _split(op.rhs, body, m_axis, n_axis, memo)
        return la + ra, lb + rb, lx + rx
    return [], [], [v]


class _Slice:
    """Clones the backward slice of values into a stage region, substituting `subst`."""

    def __init__(self, block: Block, subst: dict[SSAValue, SSAValue], tile_op: tile.TileOp,
                 k_outer: loop.ForOp):  # fmt: skip
        self.block, self.vm, self.tile, self.k_outer = block, dict(subst), tile_op, k_outer
        self.thread_dep: dict = {}

    def _local(self, v: SSAValue) -> bool:
        """Whether `v` must be cloned: defined in the tile body and depending on a thread or
        cell axis, or defined inside the K-outer loop."""
        owner = v.owner
        op = owner if isinstance(owner, Operation) else owner.parent_op()
        if op is None or not self.tile.is_ancestor(op) or op is self.tile:
            return False
        if self.k_outer.is_ancestor(op) and op is not self.k_outer:
            return True
        threads = [a for a, _, k in self.tile.axes if k != AK.BLOCK]
        return any(_depends(v, a, self.thread_dep) for a in threads)

    def get(self, v: SSAValue) -> SSAValue:
        if v in self.vm:
            return self.vm[v]
        if not self._local(v):
            return v
        op = v.owner
        if isinstance(op, BlockArgument) or not isinstance(op, Operation):
            raise ValueError(f"the slice reads the loop variable {v.name_hint or v}")
        if op.regions:
            raise ValueError(f"the slice holds '{op.name}', which has regions")
        new = op.clone_without_regions()
        for i, o in enumerate(op.operands):
            new.operands[i] = self.get(o)
        self.block.add_op(new)
        for old_r, new_r in zip(op.results, new.results):
            self.vm[old_r] = new_r
        return self.vm[v]


def _stage(rows: int, factors: list[SSAValue], subst_axis: SSAValue, block_offset: SSAValue,
           size: int, ki: SSAValue, t: tile.TileOp, k_outer: loop.ForOp) -> mma.StageOp:  # fmt: skip
    """An mma.stage of `rows` x 32 whose element is the product of `factors` with
    subst_axis = block_offset * size + %r and the K-inner index = %c."""
    block = Block(arg_types=[IndexType(), IndexType()])
    r, c = block.args
    r.name_hint, c.name_hint = "r", "c"
    amap = AffineMap(2, 0, (AffineExpr.dimension(0) * size + AffineExpr.dimension(1),))
    pos = affine.ApplyOp([block_offset, r], AffineMapAttr(amap))
    pos.result.name_hint = subst_axis.name_hint
    block.add_op(pos)
    sl = _Slice(block, {subst_axis: pos.result, ki: c}, t, k_outer)
    values = [sl.get(f) for f in factors]
    value = values[0]
    for other in values[1:]:
        mul = arith.MulfOp(value, other)
        block.add_op(mul)
        value = mul.result
    if value is pos.result:
        raise ValueError("an operand is an index")
    block.add_op(mma.StageYieldOp(value))
    return mma.StageOp(rows, K_STEP, Region(block))


def tensorize(t: tile.TileOp, layout: mma.Layout, bm: int, bn: int, precision: mma.Precision,
              promote: int = K_STEP // 8) -> str | None:  # fmt: skip
    """Tensorize matmul tile `t`; the reason it declined, or None."""
    info = matmul_info(t)
    if info is None:
        return "not a matmul tile"
    if info.inner is None or info.inner.extent.data != K_STEP:
        return f"K is not chunked by {K_STEP} (run chunk-matmul-k{{k-tile={K_STEP}}} first)"
    if any(isinstance(o, (tile.StageOp, mma.StageOp)) for o in t.walk()) or any(k == AK.CELL for _, _, k in t.axes):
        return "the tile is already scheduled (stages or cells)"
    frag = fragment_axes(layout, bm, bn)
    if isinstance(frag, str):
        return frag
    ext = {v: e for v, e, _ in t.axes}
    kinds = {v: k for v, _, k in t.axes}
    picked = []
    for what, axes, size in (("M", info.m_axes, bm), ("N", info.n_axes, bn)):
        big = [v for v in axes if ext[v] > 1]
        if len(big) != 1 or kinds[big[0]] != AK.THREAD:
            return f"{what} is not one thread axis of extent > 1"
        if ext[big[0]] % size:
            return f"{what} = {ext[big[0]]} is not a multiple of {size}"
        picked.append(big[0])
    m_axis, n_axis = picked
    body = info.inner.body.block
    acc = body.last_op
    assert isinstance(acc, loop.AccumulateOp)
    if len(acc.values) != 1 or list(info.reduce.body.block.ops) != [info.inner, info.reduce.body.block.last_op]:
        return "the K loops hold more than one accumulated product"
    if not isinstance(acc.values[0].type, Float32Type):
        return f"the product is {acc.values[0].type}, the tensor cores take f32 (as tf32)"

    threads, cells = frag
    old_axes = t.axes
    new_axes: list[tuple[int, AK, str]] = []
    for v, e, k in old_axes:
        if v not in (m_axis, n_axis):
            new_axes.append((e, AK.BLOCK, v.name_hint or "a"))
    n_block = len(new_axes)
    new_axes += [(ext[m_axis] // bm, AK.BLOCK, "bm"), (ext[n_axis] // bn, AK.BLOCK, "bn")]
    names = ["wg", "w", "g", "t"] if layout == mma.Layout.WGMMA else ["wm", "wn", "g", "t"]
    new_axes += [(e, AK.THREAD, n) for e, n in zip(threads, names)]
    cnames = ["h", "j", "e"] if layout == mma.Layout.WGMMA else ["mi", "ni", "h", "e"]
    new_axes += [(e, AK.CELL, n) for e, n in zip(cells, cnames)]
    row, col = mma.fragment_exprs(layout, threads, cells)
    nfrag = len(threads) + len(cells)
    made: dict[str, SSAValue] = {}

    def replacement(block: Block):
        frag_args = list(block.args[n_block + 2 :])
        bm_arg, bn_arg = block.args[n_block], block.args[n_block + 1]
        ops, values = [], []
        for name, base, size, expr in (("m", bm_arg, bm, row), ("n", bn_arg, bn, col)):
            amap = AffineMap(nfrag + 1, 0, (AffineExpr.dimension(nfrag) * size + expr,))
            apply = affine.ApplyOp([*frag_args, base], AffineMapAttr(amap))
            ops.append(apply)
            made[name] = apply.result
        others = iter(block.args[:n_block])
        for v, _, _ in old_axes:
            if v is m_axis:
                made["m"].name_hint = v.name_hint
                values.append(made["m"])
            elif v is n_axis:
                made["n"].name_hint = v.name_hint
                values.append(made["n"])
            else:
                values.append(next(others))
        return values, ops

    # check the product splits before touching the IR
    a_factors, b_factors, mixed = _split(acc.values[0], body, m_axis, n_axis, ({}, {}))
    if mixed:
        return "a factor of the product depends on both M and N"
    if not a_factors or not b_factors:
        return "the product does not have factors of M alone and of N alone"
    sides = {"a": a_factors, "b": b_factors}

    new = rebuild_tile(t, new_axes, replacement)
    bm_arg, bn_arg = new.body.block.args[n_block], new.body.block.args[n_block + 1]
    m_val, n_val = made["m"], made["n"]
    outer = info.reduce
    try:
        a_stage = _stage(bm, sides["a"], m_val, bm_arg, bm, info.inner.iv, new, outer)
        b_stage = _stage(bn, sides["b"], n_val, bn_arg, bn, info.inner.iv, new, outer)
    except ValueError as e:
        raise TensorizeError(f"tensorize-matmul: {e}") from None
    a_stage.result.name_hint, b_stage.result.name_hint = "a_st", "b_st"
    frag_args = list(new.body.block.args[n_block + 2 :])
    d = [AffineExpr.dimension(i) for i in range(nfrag)]
    dot = mma.DotOp(a_stage.result, frag_args, AffineMap(nfrag, 0, (row.replace_dims_and_symbols(d, []),)),
                    b_stage.result, frag_args, AffineMap(nfrag, 0, (col.replace_dims_and_symbols(d, []),)),
                    precision, layout, promote)  # fmt: skip
    dot.result.name_hint = "p"
    old_acc = outer.body.block.last_op  # the accumulate of the inner loop's result
    assert old_acc is not None
    Rewriter.erase_op(old_acc)
    new_acc = loop.AccumulateOp([loop.CombineKind.ADD], [dot.result])
    Rewriter.replace_op(info.inner, [a_stage, b_stage, dot, new_acc], [None])
    _erase_dead(new)
    fold_applies(new)
    return None


class TensorizeError(ValueError):
    """A slice tensorize-matmul cannot move into a stage (one line)."""


def _erase_dead(t: tile.TileOp) -> None:
    """Erase ops of the tile body left without uses (pre-loop values the stages now compute)."""
    changed = True
    while changed:
        changed = False
        for op in list(t.body.block.ops):
            if op.results and not op.regions and all(not r.uses for r in op.results) and (
                op.dialect_name() in ("arith", "math", "affine") or isinstance(op, loop.LoadOp)
            ):
                op.detach()
                op.erase()
                changed = True


@dataclass(frozen=True)
class TensorizeMatmul(ModulePass):
    """Put matmul tiles on the tensor cores: fragment axes, K-major operand stages, mma.dot."""

    name = "tensorize-matmul"

    layout: str = "wgmma"
    bm: int = tunable(128, (64, 128, 256))
    bn: int = tunable(128, (32, 64, 128, 256))
    precision: str = "3xtf32"
    promote: int = K_STEP // 8
    """MMA steps of 8 per tensor-core accumulation chain (a divisor of the K step's 4)."""

    def __post_init__(self) -> None:
        if self.layout not in tuple(x.value for x in mma.Layout):
            raise ValueError(f"tensorize-matmul: layout must be wgmma or mma_sync, got {self.layout!r}")
        if self.precision not in ("3xtf32", "tf32"):
            raise ValueError(f"tensorize-matmul: precision must be 3xtf32 or tf32, got {self.precision!r}")
        check_option(self, "bm", 64, 256)
        check_option(self, "bn", 8, 256)
        check_option(self, "promote", choices=(4, 2, 1))
        frag = fragment_axes(mma.Layout(self.layout), self.bm, self.bn)
        if isinstance(frag, str):
            raise ValueError(f"tensorize-matmul: {frag}")

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        layout, precision = mma.Layout(self.layout), mma.Precision(self.precision)
        def one(t: tile.TileOp) -> str | None:
            return tensorize(t, layout, self.bm, self.bn, precision, self.promote)

        for where, reason in for_each_tile(op, one):
            if reason is None:
                LOG.info("tensorize-matmul: %s: %s %dx%d, %s, promote %d", where, self.layout, self.bm,
                         self.bn, self.precision, self.promote)  # fmt: skip
            else:
                LOG.info("tensorize-matmul: declined %s: %s", where, reason)
