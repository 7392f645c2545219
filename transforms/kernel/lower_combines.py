"""lower-combines: each `tile.combine` becomes warp shuffles or a shared-memory tree.

Over the bound tiles of kernel.funcs, for each combine (its partials folded across some thread
axes, every thread of them seeing the result), by the first plan that applies:

- `xor`: `warp_shuffle` and the combined threads are lanes of one warp (power-of-two extents and
  strides within 32): a butterfly of `kernel.shuffle_xor`s, every lane ends with the result;
- `warps`: `warp_shuffle`, the combined axes are the trailing thread axes and span whole warps:
  a butterfly in each warp, lane 0 of each warp writes its warp's result to a `kernel.smem`
  buffer, warp 0 folds those with `kernel.shuffle_down` and writes the result to a slot of its
  own (after the warps' slots, which other lanes of warp 0 may still be reading: no barrier
  orders them), and every thread reads it back (two barriers);
- `tree`: otherwise (or `tree` asked for): each thread writes its partial to shared memory and
  halving steps fold pairs, a barrier after each; the group's first slot is the result. The
  slots are group-major (group * G + partial), or partial-major where the fastest thread axis is
  not combined (a column reduction: a warp of columns, its lanes in other warps), so that a
  warp's writes and reads are consecutive words (no bank conflicts).

A buffer inside a loop is allocated once at the top of the tile. `lane`/`warp` and the
`is_lane0`/`is_warp0` guards are computed once, right after the thread indices.

    %m = tile.combine max %part across [%l] warp_shuffle : f64      // %l: 16 lanes
 -> %m_sh8 = kernel.shuffle_xor %part, 8 : f64
    %m_w8 = arith.maximumf %part, %m_sh8 : f64
    ... (offsets 4, 2, 1)

Declines nothing (a tile without combines is left as it is); a combine across axes of extent 1
is just its partial.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import MemRefType, ModuleOp, NoneAttr
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import kernel as K
from dpl.dialects import tile
from dpl.dialects.loop import CombineKind
from dpl.dialects.tile import CombineStrategy
from dpl.transforms.kernel.combiners import combine_op, identity
from dpl.transforms.kernel.lowering import TileLowering, bound_tiles, is_pow2, replace_uses

WARP = 32


def next_pow2(n: int) -> int:
    return 1 << max(0, n - 1).bit_length()


def halvings(n: int) -> list[int]:
    """n/2, n/4, ..., 1."""
    out, k = [], n // 2
    while k >= 1:
        out.append(k)
        k //= 2
    return out


class CombineLowering(TileLowering):
    """Lowers the combines of one bound tile."""

    def __init__(self, kfunc: K.KernelFuncOp, tile_op: tile.TileOp):
        super().__init__(kfunc, tile_op)
        self.hoisted: list[Operation] = []
        self.lane: SSAValue | None = None
        self.warp: SSAValue | None = None
        self.index_ip: InsertPoint | None = None  # where lane/warp indices and guards go

    def run(self) -> None:
        for op in [o for o in self.tile.walk() if isinstance(o, tile.CombineOp)]:
            with self.at(InsertPoint.before(op)):
                results = self.combine(op)
            for old, new in zip(op.res, results):
                replace_uses(old, new)
            Rewriter.erase_op(op)
        if self.hoisted:
            Rewriter.insert_op(self.hoisted, InsertPoint.at_start(self.tile.body.block))

    # -- plans ----------------------------------------------------------------------------------

    def strides(self) -> dict[int, int]:
        """Each big thread axis's stride in the flat thread index."""
        big = self.big
        return {p: math.prod(self.extent[q] for q in big[i + 1 :]) for i, p in enumerate(big)}

    def plan(self, op: tile.CombineOp):
        """("none" | "xor" | "warps" | "tree", details); see the module docstring."""
        pos = {arg: i for i, (arg, _, _) in enumerate(self.axes)}
        axes = [pos[a] for a in op.axes if self.extent[pos[a]] > 1]
        if not axes:
            return "none", None
        strides = self.strides()
        G = math.prod(self.extent[p] for p in axes)
        if op.strategy.data == CombineStrategy.WARP_SHUFFLE and self.T % WARP == 0:
            pow2 = all(is_pow2(self.extent[p]) and is_pow2(strides[p]) for p in axes)
            if pow2 and all(strides[p] * self.extent[p] <= WARP for p in axes):
                offsets = sorted(
                    (strides[p] * k for p in axes for k in halvings(self.extent[p])), reverse=True
                )
                return "xor", offsets
            trailing = set(axes) == set(self.big[len(self.big) - len(axes) :])
            if trailing and G % WARP == 0:
                W, Wg = self.T // WARP, G // WARP
                NG = W // Wg
                if Wg == 1:
                    return "xor", halvings(WARP)
                if NG == 1 or is_pow2(Wg):
                    return "warps", (W, Wg, NG)
        return "tree", ([p for p in self.big if p in axes], G)

    def combine(self, op: tile.CombineOp) -> list[SSAValue]:
        mode, info = self.plan(op)
        values = list(op.values)
        if mode == "none":
            return values
        kind = op.kind.data
        name = op.res[0].name_hint or "acc"
        names = [name]
        if len(values) > 1:
            names = [r.name_hint or f"acc_{i}" for i, r in enumerate(op.res)]
        in_loop = any(isinstance(p, K.ForOp) for p in self.enclosing_loops(op))
        if mode == "xor":
            out = [self.butterfly(v, info, kind, n) for v, n in zip(values, names)]
            for o, n in zip(out, names):
                o.name_hint = n
            return out
        if mode == "warps":
            return self.combine_warps(values, kind, names, name, info, in_loop)
        return self.combine_tree(values, kind, names, name, info, in_loop)

    # -- helpers --------------------------------------------------------------------------------

    def fold(self, kind: CombineKind, a: SSAValue, b: SSAValue, name: str = "") -> SSAValue:
        return self.named(combine_op(kind, a, b), name)

    def butterfly(self, v: SSAValue, offsets: list[int], kind: CombineKind, name: str) -> SSAValue:
        cur = v
        for i, off in enumerate(offsets):
            sh = self.named(K.ShuffleXorOp(cur, off), f"{name}_sh{off}")
            last = i == len(offsets) - 1
            cur = self.fold(kind, cur, sh, f"{name}_w" if last else f"{name}_w{off}")
        return cur

    def smem_buffer(self, shape: list[int], t: Attribute, name: str, hoist: bool) -> SSAValue:
        op = K.SmemOp(MemRefType(t, shape, NoneAttr(), K.SMEM))
        op.result.name_hint = name
        if hoist:
            self.hoisted.append(op)
        else:
            self.emit(op)
        return op.result

    def index_op(self, op: Operation, name: str) -> SSAValue:
        """Put `op` with the thread indices (after what this pass put there before)."""
        if self.index_ip is None:
            self.index_ip = self.after_indices()
        with self.at(self.index_ip):
            r = self.named(op, name)
        self.index_ip = InsertPoint.after(op)
        return r

    def lane_warp(self) -> tuple[SSAValue, SSAValue]:
        """The lane and warp indices of the thread (made once, after the thread indices)."""
        if self.lane is None:
            hints = {v.name_hint for v, _, _ in self.axes if v.name_hint}
            self.lane = self.index_op(K.LaneIdOp(), "lane" if "lane" not in hints else "lane_id")
            self.warp = self.index_op(K.WarpIdOp(), "warp")
        assert self.warp is not None
        return self.lane, self.warp

    def index_guard(self, key: str, v: SSAValue) -> SSAValue:
        if (key,) not in self.guards:
            self.guards[(key,)] = self.index_op(arith.CmpiOp(v, self.const(0), "eq"), f"is_{key}")
        return self.guards[(key,)]

    # -- the two shared-memory forms ------------------------------------------------------------

    def combine_warps(self, values, kind, names, name, info, in_loop) -> list[SSAValue]:
        W, Wg, NG = info
        lane, warp = self.lane_warp()
        t = values[0].type
        n = len(values)
        ws = [self.butterfly(v, halvings(WARP), kind, nm) for v, nm in zip(values, names)]
        # Slots [0, W) hold the warps' results, [W, W + NG) the groups' results: warp 0 reads
        # the former while its group leaders write the latter, so they must not overlap (and
        # in a loop, the next iteration's per-warp writes must not clobber a result being read).
        R, S = W, W + NG
        smem = self.smem_buffer([S] if n == 1 else [n, S], t, f"{name}_smem", in_loop)
        d0 = AffineExpr.dimension(0)

        def at(j: int, e: AffineExpr, nd: int = 1) -> AffineMap:
            return AffineMap(nd, 0, (e,) if n == 1 else (AffineExpr.constant(j), e))

        firsts = [K.StoreOp(w, smem, [warp], at(j, d0)) for j, w in enumerate(ws)]
        then = Block([*firsts, K.YieldOp()])
        self.emit(K.IfOp(self.index_guard("lane0", lane), Region(then)))
        self.emit(K.BarrierOp())
        is_warp0 = self.index_guard("warp0", warp)
        body = Block()
        with self.at(body):
            width = Wg if NG > 1 else next_pow2(W)
            in_range = self.cmp(lane, W, "ult", "in_range") if W < WARP else None
            parts = []
            for j in range(n):
                idx = d0 % W if W < WARP else d0
                p = self.named(K.LoadOp(smem, [lane], at(j, idx)), "part")
                if in_range is not None:
                    neutral = self.const(identity(kind, t), t)
                    p = self.named(arith.SelectOp(in_range, p, neutral), "p")
                for off in halvings(width):
                    dn = self.named(K.ShuffleDownOp(p, off, width), f"d{off}")
                    p = self.fold(kind, p, dn, f"p{off}")
                parts.append(p)
            if NG == 1:
                cond = self.index_guard("lane0", lane)
                stores = [K.StoreOp(p, smem, [], at(j, AffineExpr.constant(R), 0))
                          for j, p in enumerate(parts)]  # fmt: skip
            else:
                seg0 = self.cmp(self.remui(lane, Wg), 0, "eq")
                cond = self.emit(arith.AndIOp(seg0, in_range)).results[0] if in_range else seg0
                stores = [K.StoreOp(p, smem, [lane], at(j, d0 // Wg + R))
                          for j, p in enumerate(parts)]  # fmt: skip
            self.emit(K.IfOp(cond, Region(Block([*stores, K.YieldOp()]))))
            self.emit(K.YieldOp())
        self.emit(K.IfOp(is_warp0, Region(body)))
        self.emit(K.BarrierOp())
        out = []
        for j, nm in enumerate(names):
            if NG == 1:
                out.append(self.named(K.LoadOp(smem, [], at(j, AffineExpr.constant(R), 0)), nm))
            else:
                out.append(self.named(K.LoadOp(smem, [warp], at(j, d0 // Wg + R)), nm))
        return out

    def combine_tree(self, values, kind, names, name, info, in_loop) -> list[SSAValue]:
        axes, G = info
        others = [p for p in self.big if p not in axes]
        NG = math.prod(self.extent[p] for p in others)
        t = values[0].type
        n = len(values)
        smem = self.smem_buffer([NG * G] if n == 1 else [n, NG * G], t, f"{name}_smem", in_loop)
        if not others:
            assert self.tid is not None
            leaves = [self.tid]
            pexpr = AffineExpr.dimension(0)
            gexpr = AffineExpr.constant(0)
        else:
            leaves = [self.axis_val[p] for p in axes + others]
            pexpr, gexpr = AffineExpr.constant(0), AffineExpr.constant(0)
            for i, _ in enumerate(axes):
                stride = math.prod(self.extent[q] for q in axes[i + 1 :])
                pexpr = pexpr + AffineExpr.dimension(i) * stride
            for i, _ in enumerate(others):
                stride = math.prod(self.extent[q] for q in others[i + 1 :])
                gexpr = gexpr + AffineExpr.dimension(len(axes) + i) * stride
        # Group-major slots (g * G + p) unless the fastest thread axis is a group's (a column
        # reduction: a warp of columns, its lanes in other warps): then g * G would put a warp's
        # 32 writes G words apart (G-way bank conflicts), and the slots are lane-major (p * NG + g).
        lane_major = bool(others) and self.big[-1] not in axes
        step = NG if lane_major else 1  # the slot distance between partials p and p + 1
        base = gexpr if lane_major else gexpr * G
        slot = base + pexpr * step
        nl = len(leaves)

        def at(j: int, e: AffineExpr) -> AffineMap:
            return AffineMap(nl, 0, (e,) if n == 1 else (AffineExpr.constant(j), e))

        for j, v in enumerate(values):
            self.emit(K.StoreOp(v, smem, leaves, at(j, slot)))
        self.emit(K.BarrierOp())
        pval = self.tid if not others else self.expr_value(pexpr, leaves)
        assert pval is not None
        live = G
        while live > 1:
            s = next_pow2(live) // 2
            cond = self.cmp(pval, live - s, "ult")
            then = Block()
            with self.at(then):
                for j in range(n):
                    a = self.emit(K.LoadOp(smem, leaves, at(j, slot))).results[0]
                    b = self.emit(K.LoadOp(smem, leaves, at(j, slot + s * step))).results[0]
                    self.emit(K.StoreOp(self.fold(kind, a, b), smem, leaves, at(j, slot)))
                self.emit(K.YieldOp())
            self.emit(K.IfOp(cond, Region(then)))
            self.emit(K.BarrierOp())
            live = s
        out = [self.named(K.LoadOp(smem, leaves, at(j, base)), nm) for j, nm in enumerate(names)]
        if in_loop:
            self.emit(K.BarrierOp())  # the next iteration overwrites what was just read
        return out


@dataclass(frozen=True)
class LowerCombines(ModulePass):
    """Lower each tile.combine to warp shuffles or a shared-memory tree."""

    name = "lower-combines"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kfunc, t in list(bound_tiles(op)):
            CombineLowering(kfunc, t).run()
