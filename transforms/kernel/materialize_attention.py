"""materialize-attention: lower each attention tile (`attn.flash`, tile-attention's) of @main to one
flash-attention `kernel.func` and its `kernel.launch`; the other kernels are left to
materialize-mma and materialize, and attention tiles marked `wgmma` to materialize-attention-wgmma.

One block computes R = 16 W query rows (W warps, each 16 rows in the mma.sync m16n8k8 fragment:
thread (g, t) of a warp holds rows g and g + 8, columns 2t and 2t + 1 of every 8-column tile).
The query tile stays in shared memory; key and value tiles of N keys stream through one shared
buffer each, loaded with cp.async (16-byte chunks, where the region is a plain load whose
columns are contiguous and 16-byte aligned; else element by element) so that the values of key
tile j arrive while the scores of tile j are computed and the keys of tile j + 1 while its
P @ V runs:

    grid: block axes (x: the query block, heaviest first when causal), block 32 W threads
    smem: qs [R][D8 + 4], ks [N][D8 + 4], vs [N][DV8 + 4] f32 (rows padded: conflict-free fragments;
          D8, DV8: depth and value depth rounded up to 8, the padding zero)
    regs: o [DV8 / 2] (the output fragment), sc [N / 2] (scores, then probabilities),
          m, l (running max and sum of the thread's two rows), chain accumulators

    fill qs (rows l0..), fill ks (keys 0..N); commit
    for j < tiles (causal: up to the tile holding the block's last row):
        wait; barrier; fill vs (keys jN..); commit
        [presplit: ks = tf32(ks), ks_lo = tf32(ks - tf32(ks)) by the whole block; barrier]
        sc = Q K^T                     mma.sync, 3xTF32: lo*hi, hi*lo, hi*hi per k-step of 8
        sc = score(sc, l, s)           the score region (scale, mask); keys >= S: -inf
        m' = max(m, rowmax sc) (quad shuffles); alpha = exp(m - m'); sc = exp(sc - m');
        l = l alpha + rowsum sc; o *= alpha
        wait; barrier; fill ks (keys (j+1)N..); commit
        [presplit: vs, vs_lo likewise; barrier]
        o += P V                       P from sc (keys 2t, 2t + 1 of each 8 as the A fragment's
                                       k = t, t + 4), V from vs
    o / quad-sum(l) -> the output region (rows < L, columns < DV)

A split over the keys (`split %sp keys C`) runs the key tiles [sp C / N, min(sp C / N + C / N,
tiles, the causal last)) only (none: the loop is empty, the first key tile's copy is waited for);
its output is 0 where a row's l is 0, and lane t = 0 of each quad stores the row's log-sum-exp
m + log l (-inf where l is 0) through the lse region.

Presplit (value depth >= flash_step.PRESPLIT_DEPTH, tensor cores): each key and value tile is
split into its TF32 parts once, 16 bytes per thread in turn, the hi part in place and 3xTF32's
lo part in ks_lo [N][D8 + 4] / vs_lo [N][DV8 + 4] (twice the key and value shared memory), so
the MMAs load ready parts instead of each warp splitting the same elements per MMA.
`qsplit` on the attn.flash splits the query tile the same way once, after it lands (qs: hi,
qs_lo [R][D8 + 4]: lo), instead of every warp splitting its query fragments per key tile.
`wide` loads the fragments 128 bits wide (flash_step: the scores' k order and, at wide 2,
o's column order permuted within groups of 4; the epilogue stores o by `FlashStep.column`).

The steps of one key tile (scores, score epilogue, online softmax, rescale, P @ V) are
flash_step.py's; tensor-core accumulation chains are kept short there (the tensor cores round
each MMA's sum toward zero). Unsupported structure (a region op other than loads, stores, index
and scalar math; more shared memory than a block may use on the module's #kernel.target (227 KiB
on sm_90); a block axis too large for grid y or z) raises
a one-line AttentionLoweringError (a ValueError).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import ArrayAttr, Float32Type, IntAttr, MemRefType, ModuleOp, NoneAttr
from xdsl.ir import BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineDimExpr, AffineExpr
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import attn, mma, tile
from dpl.dialects import kernel as K
from dpl.dialects.loop import LoadOp
from dpl.transforms.kernel.flash_step import AttentionLoweringError, FlashStep
from dpl.transforms.kernel.lowering import amap, dims, drop_dead_arith, multiple_of
from dpl.transforms.tile.target import target_smem

AK = tile.AxisKind
_OGT = 2
PAD = 4
"""Floats of padding per shared row (conflict-free fragment reads)."""


def _uses(e: AffineExpr, d: int) -> bool:
    if isinstance(e, AffineDimExpr):
        return e.position == d
    if isinstance(e, AffineBinaryOpExpr):
        return _uses(e.lhs, d) or _uses(e.rhs, d)
    return False


def _without(e: AffineExpr, d: int) -> AffineExpr | None:
    """`e` = rest + dim d (unit coefficient, d nowhere else): rest; else None."""
    if isinstance(e, AffineDimExpr) and e.position == d:
        return AffineExpr.constant(0)
    if isinstance(e, AffineBinaryOpExpr) and e.kind == AffineBinaryOpKind.Add:
        for a, b in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if not _uses(b, d):
                inner = _without(a, d)
                if inner is not None:
                    return inner + b
    return None


def async_source(region: Region) -> LoadOp | None:
    """The region's load if it is one plain load whose innermost index is the column argument
    (unit stride, nowhere else) and whose row start is a multiple of 4 elements (16 bytes) for
    any value of the other indices: then 16-byte cp.async chunks copy it."""
    ops = list(region.block.ops)
    if len(ops) != 2 or not isinstance(ops[0], LoadOp) or ops[1].operands[0] is not ops[0].result:
        return None
    load = ops[0]
    col = region.block.args[-1]
    positions = [i for i, v in enumerate(load.indices) if v is col]
    if len(positions) != 1:
        return None
    d = positions[0]
    lmap = load.map.data
    if any(_uses(e, d) for e in lmap.results[:-1]):
        return None
    rest = _without(lmap.results[-1], d)
    if rest is None:
        return None
    shape = load.memref.type.get_shape()  # type: ignore[union-attr]
    flat: AffineExpr = rest
    stride = 1
    for e, size in zip(reversed(lmap.results[:-1]), reversed(shape[1:])):
        stride *= size
        flat = flat + e * stride
    return load if multiple_of(flat, 4) else None


class FlashLowering(FlashStep):
    """Builds the `kernel.func` of one attention `tile.kernel` (module doc)."""

    def __init__(self, kop: tile.KernelOp):
        flashes = [o for o in kop.tile.body.block.ops if isinstance(o, attn.FlashOp)]
        if len(flashes) != 1:
            raise AttentionLoweringError(
                f"materialize-attention: @{kop.sym_name.data}: needs one 'attn.flash' in its tile"
            )
        self.old_args = [*kop.ins, *kop.outs]
        op = flashes[0]
        threads = 32 * (op.size("rows") // attn.MMA_ROWS)
        types = [a.type for a in self.old_args]
        kfunc = K.KernelFuncOp(kop.sym_name.data, types, [1, 1, 1], [threads, 1, 1])
        super().__init__(kfunc, op)
        self.kop, self.tile = kop, kop.tile
        for new, old in zip(kfunc.args, self.old_args):
            new.name_hint = old.name_hint
            self.vm[old] = new
        self.any_async = False

    def lower(self, max_smem: int) -> K.KernelFuncOp:
        """The kernel.func (its launch takes `old_args`), using at most `max_smem` bytes of shared
        memory (the target's)."""
        smem = 4 * ((self.R + self.N) * (self.DP + PAD) + self.N * (self.DVP + PAD))
        if self.split_lo:
            smem += 4 * self.N * (self.DP + self.DVP + 2 * PAD)
        if self.qsplit and self.precision == mma.Precision.TF32X3:
            smem += 4 * self.R * (self.DP + PAD)
        if smem > max_smem:
            self.error(f"needs {smem} bytes of shared memory, more than {max_smem}")
        self.func.smem = IntAttr(smem)
        self.emit_entry()
        self.emit_buffers()
        self.emit_body()
        drop_dead_arith(self.func)
        return self.func

    def emit_entry(self) -> None:
        """The kernel's constants, axes (grid, block and thread indices) and the block's first
        query row."""
        for o in self.kop.body.block.ops:  # constants before the tile
            if o is not self.tile:
                self.clone(o, self.vm)
        self.emit_axes()
        for o in self.tile.body.block.ops:  # the block's first row (block axes only)
            if o is self.op:
                break
            self.clone(o, self.vm)

    def emit_axes(self) -> None:
        blocks = [(v, e) for v, e, k in self.tile.axes if k == AK.BLOCK]
        threads = [v for v, _, k in self.tile.axes if k == AK.THREAD]
        real = [(v, e) for v, e in blocks if e > 1]
        for v, e in blocks:
            if e == 1:
                self.vm[v] = self.const(0)
        first = self.op.first_row
        qb = first if isinstance(first, BlockArgument) else None
        if qb is None and isinstance(first.owner, Operation):
            qb = next((o for o in first.owner.operands if isinstance(o, BlockArgument)), None)
        self.grid = [1, 1, 1]
        for dim, (v, e) in zip((K.Dim.X, K.Dim.Y), reversed(real[-2:])):
            raw = self.named(K.BlockIdOp(dim), f"b{dim.value}")
            self.grid["xyz".index(dim.value)] = e
            if v is qb and self.op.is_causal:  # the longest causal rows first
                raw = self.named(arith.SubiOp(self.const(e - 1), raw))
            raw.name_hint = v.name_hint
            self.vm[v] = raw
        rest = real[:-2]
        if rest:
            self.grid[2] = math.prod(e for _, e in rest)
            if self.grid[1] > 65535 or self.grid[2] > 65535:
                self.error("has a block axis too large for grid y or z")
            bz = self.named(K.BlockIdOp(K.Dim.Z), "bz")
            below = self.grid[2]
            d0 = AffineExpr.dimension(0)
            for v, e in rest:
                below //= e
                e_v = (d0 // below) % e if below > 1 else d0 % e
                self.vm[v] = self.expr_value(e_v, [bz], v.name_hint or "")
        self.func.grid = ArrayAttr([IntAttr(g) for g in self.grid])
        tid = self.named(K.ThreadIdOp(K.Dim.X), "tid")
        d0 = AffineExpr.dimension(0)
        for v, e in zip(threads, (d0 // 32, d0 // 4 % 8, d0 % 4)):
            self.vm[v] = self.expr_value(e, [tid], v.name_hint or "")
        self.tid = tid
        self.w, self.g, self.t = (self.vm[v] for v in threads)

    def emit_buffers(self) -> None:
        f32 = Float32Type()
        rows_q, rows_k = self.R * (self.DP + PAD), self.N * (self.DP + PAD)

        def smem(shape, offset, name):
            t = MemRefType(f32, shape, NoneAttr(), K.SMEM)
            return self.named(K.SmemOp(t, offset), name)

        self.qs = smem([self.R, self.DP + PAD], 0, "qs")
        self.ks = smem([self.N, self.DP + PAD], 4 * rows_q, "ks")
        rows_v = self.N * (self.DVP + PAD)
        self.vs = smem([self.N, self.DVP + PAD], 4 * (rows_q + rows_k), "vs")
        self.ks_lo = self.vs_lo = None
        if self.split_lo:
            self.ks_lo = smem([self.N, self.DP + PAD], 4 * (rows_q + rows_k + rows_v), "ks_lo")
            self.vs_lo = smem([self.N, self.DVP + PAD], 4 * (rows_q + 2 * rows_k + rows_v), "vs_lo")
        self.qs_lo = None
        if self.qsplit and self.precision == mma.Precision.TF32X3:
            end = rows_q + rows_k + rows_v + (rows_k + rows_v if self.split_lo else 0)
            self.qs_lo = smem([self.R, self.DP + PAD], 4 * end, "qs_lo")

        def regs(n, name):
            return self.named(K.AllocaOp(MemRefType(f32, [n])), name)

        self.o = regs(self.DVP // 2, "o")
        self.sc = regs(self.N // 2, "sc")
        self.ml = regs(4, "ml")
        chained = not self.simt and self.chain_s < self.DP // 8
        self.tmp = regs(self.N // 2, "sc_chain") if chained else None
        self.pv = regs(4 * self.pv_group, "pv") if not self.simt else None
        several = not self.simt and self.DVP // 8 > self.pv_group
        self.sc_lo = regs(self.N // 2, "sc_lo") if several else None

    # -- fills ----------------------------------------------------------------------------------

    def fill(
        self, dst: SSAValue, name: str, base: SSAValue, rows: int, cols: int, padded: int,
        limit: int, at: tuple[AffineExpr, ...] | None = None, by_column: bool = False,
    ) -> None:
        """dst[r][c] = region(base + r, c) for r < rows, c < padded; 0 past `cols` or `limit`.
        `at`: where element (r, c) goes, affine in (d0, d1) = (r, c) (default dst[r][c]);
        `by_column`: where the threads tile whole rows, each thread's chunks are one column of
        rows NT / row apart (addresses that differ by constants from chunk to chunk)."""
        region = self.op.region(name)
        load = async_source(region) if cols % 4 == 0 else None
        width = 4 if load is not None else 1
        per_row = padded // width
        total = rows * per_row
        d0, d1, d2 = dims(3)
        where = amap(2, *(at or (d0, d1)))
        row_check = limit % rows != 0 or rows > limit
        zero = self.f32(0.0)
        if load is not None:
            self.any_async = True

        def body(i: SSAValue) -> None:
            if by_column and self.NT % per_row == 0:
                r = self.expr_value(d0 // per_row + d1 * (self.NT // per_row), [self.tid, i], "r")
                c = self.expr_value((d0 % per_row) * width, [self.tid], "c")
            else:
                q = self.expr_value(d0 + d1 * self.NT, [self.tid, i], "q")
                r = self.expr_value(d0 // per_row, [q], "r")
                c = self.expr_value((d0 % per_row) * width, [q], "c")
            row = self.expr_value(d0 + d1, [base, r], "row")
            conds = []
            if row_check:
                conds.append(self.cmp(row, limit, "ult"))
            if cols < padded:
                conds.append(self.cmp(c, cols, "ult"))

            def copy() -> None:
                if load is not None:
                    m = dict(self.vm)
                    m[region.block.args[0]], m[region.block.args[1]] = row, c
                    src = [m.get(v, v) for v in load.indices]
                    self.emit(K.CpAsyncOp(dst, [r, c], where, m[load.memref], src, load.map.data, 16))
                else:
                    (v,) = self.clone_region(region, [row, c])
                    self.emit(K.StoreOp(v, dst, [r, c], where))

            def zeros() -> None:
                if width == 4:
                    zeros4 = self.named(K.PackOp([zero] * 4))
                    self.emit(K.StoreOp(zeros4, dst, [r, c], where))
                else:
                    self.emit(K.StoreOp(zero, dst, [r, c], where))

            if conds:
                cond = self.all_of(conds)
                self.if_(cond, copy, zeros)
            else:
                copy()

        self.for_chunks(total, body, f"{name[0]}i")

    # -- the main loop --------------------------------------------------------------------------

    def emit_state(self) -> tuple[SSAValue, SSAValue | int]:
        """o = 0, m = -inf, l = 0 and the thread's two rows (l0 + 16 w + g + 8 h); returns l0 and
        the block's key tiles (causal: through the tile holding its last row)."""
        d0, d1, d2 = dims(3)
        ninf = self.f32(float("-inf"))
        self.zero_regs(self.o, self.DVP // 2)
        for h in range(2):
            self.store(ninf, self.ml, [], h)
            self.store(self.f32(0.0), self.ml, [], 2 + h)
        l0 = self.vm[self.op.first_row]
        lwg = [l0, self.w, self.g]
        self.rows = [self.expr_value(d0 + d1 * 16 + d2 + 8 * h, lwg, f"row{h}") for h in range(2)]
        tiles = -(-self.S // self.N)
        if not self.op.is_causal:
            return l0, tiles
        last = self.expr_value((d0 + (self.R - 1)) // self.N + 1, [l0], "last")
        return l0, self.named(arith.MinSIOp(last, self.const(tiles)), "tiles")

    def emit_body(self) -> None:
        d0, d1, d2, d3 = dims(4)
        l0, nt = self.emit_state()
        first: SSAValue | None = None  # a split's first key tile
        if self.op.split is not None and self.op.split_keys is not None:
            per = self.op.split_keys.data // self.N
            first = self.expr_value(d0 * per, [self.vm[self.op.split]], "first")
            end = self.expr_value(d0 + per, [first], "end")
            bound = nt if not isinstance(nt, int) else self.const(nt)
            nt = self.expr_value(d0 - d1, [self.named(arith.MinSIOp(end, bound)), first], "tiles")

        def key(j: SSAValue, name: str) -> SSAValue:
            """The first key of key tile j (of the split)."""
            if first is None:
                return self.expr_value(d0 * self.N, [j], name)
            return self.expr_value((d0 + d1) * self.N, [first, j], name)

        self.fill(self.qs, "query", l0, self.R, self.D, self.DP, self.L)
        self.fill(self.ks, "key", self.const(0) if first is None else key(self.const(0), "k0"), self.N,
                  self.D, self.DP, self.S)  # fmt: skip
        self.commit()
        if self.qsplit:  # the query tile (and the first key tile) landed: split it once
            self.wait()
            self.emit(K.BarrierOp())
            self.split_tile(self.qs, self.qs_lo, self.DP, self.R)
            self.emit(K.BarrierOp())

        def step(j: SSAValue) -> None:
            s0 = key(j, "s0")
            self.wait()
            self.emit(K.BarrierOp())
            self.fill(self.vs, "value", s0, self.N, self.DV, self.DVP, self.S)
            self.commit()
            if self.presplit:
                self.split_tile(self.ks, self.ks_lo, self.DP)
                self.emit(K.BarrierOp())
            self.scores()
            self.score_epilogue(s0)
            alphas = self.online_softmax()
            self.rescale(alphas)
            self.wait()
            self.emit(K.BarrierOp())
            nxt = self.expr_value(d0 + 1, [j], "next")
            s1 = key(nxt, "s1")

            def more() -> None:
                self.fill(self.ks, "key", s1, self.N, self.D, self.DP, self.S)
                self.commit()

            if isinstance(nt, int) and nt == 1:
                pass
            else:
                bound = nt if not isinstance(nt, int) else self.const(nt)
                self.if_(self.named(arith.CmpiOp(nxt, bound, "ult")), more)
            if self.presplit:
                self.split_tile(self.vs, self.vs_lo, self.DVP)
                self.emit(K.BarrierOp())
            self.pv_step()

        self.for_(nt, step, name="j")
        if first is not None:
            self.wait()  # a split without key tiles for the block still loaded its first
        self.epilogue()

    def split_tile(self, buf: SSAValue, lo: SSAValue | None, cols: int, rows: int | None = None) -> None:
        """Split a landed key or value tile (N rows, `cols` columns, a multiple of 8), or the
        query tile (`rows` R), once for the block's MMAs: buf = tf32(x) (the hi part, in place)
        and lo = tf32(x - hi), 16 bytes per thread in turn."""
        d0, d1 = dims(2)
        per_row = cols // 4
        total = (rows or self.N) * per_row

        def body(i: SSAValue) -> None:
            q = self.expr_value(d0 + d1 * self.NT, [self.tid, i], "q")
            r = self.expr_value(d0 // per_row, [q], "r")
            c = self.expr_value((d0 % per_row) * 4, [q], "c")
            x = self.named(K.LoadOp(buf, [r, c], amap(2, d0, d1), vector=4))
            parts = [self.split(self.named(K.ExtractOp(x, e))) for e in range(4)]
            self.emit(K.StoreOp(self.named(K.PackOp([h for h, _ in parts])), buf, [r, c], amap(2, d0, d1)))
            if lo is not None:
                rests = [rest for _, rest in parts]
                assert all(v is not None for v in rests)
                self.emit(K.StoreOp(self.named(K.PackOp(rests)), lo, [r, c], amap(2, d0, d1)))  # type: ignore[arg-type]

        self.for_chunks(total, body, "si")

    def for_chunks(self, total: int, body: Callable[[SSAValue], None], name: str) -> None:
        """`body(i)` over ceil(total / NT) unrolled trips, each thread's chunk of trip i being
        tid + i NT, skipped past `total` where NT does not divide it."""
        d0, d1 = dims(2)

        def guarded(i: SSAValue) -> None:
            if total % self.NT:
                q = self.expr_value(d0 + d1 * self.NT, [self.tid, i], "q")
                self.if_(self.cmp(q, total, "ult"), lambda: body(i))
            else:
                body(i)

        self.for_(-(-total // self.NT), guarded, unroll=True, name=name)

    def all_of(self, conds: list[SSAValue]) -> SSAValue:
        cond = conds[0]
        for c in conds[1:]:
            cond = self.named(arith.AndIOp(cond, c))
        return cond

    def commit(self) -> None:
        if self.any_async:
            self.emit(K.CpAsyncCommitOp())

    def wait(self) -> None:
        if self.any_async:
            self.emit(K.CpAsyncWaitOp(0))

    def epilogue(self) -> None:
        """o / l to the output region; a split: 0 where l is 0 (no key of the split for the row),
        and the row's log-sum-exp m + log l (-inf where l is 0) to the lse region."""
        d0, d1, d2 = dims(3)
        sums = []
        for h in range(2):
            s = self.load(self.ml, [], 2 + h, name="l")
            for off in (1, 2):
                s = self.named(arith.AddfOp(s, self.named(K.ShuffleXorOp(s, off))))
            sums.append(s)
        row_ok = [self.cmp(r, self.L, "ult") for r in self.rows] if self.L % self.R else None
        split = self.op.lse is not None
        zero = self.f32(0.0) if split else None
        some = [self.named(arith.CmpfOp(s, zero, _OGT)) for s in sums] if split else []

        def body(j: SSAValue) -> None:
            for i in range(4):
                h = i // 2
                c = self.expr_value(self.column(d0, d1, i % 2), [j, self.t], "col")
                v = self.named(arith.DivfOp(self.load(self.o, [j], d0 * 4 + i), sums[h]))
                if split:
                    v = self.named(arith.SelectOp(some[h], v, zero))
                conds = [row_ok[h]] if row_ok else []
                if self.DV % 8:
                    conds.append(self.cmp(c, self.DV, "ult"))

                def out(v=v, c=c, h=h) -> None:
                    self.clone_region(self.op.output, [v, self.rows[h], c])

                if conds:
                    cond = self.all_of(conds)
                    self.if_(cond, out)
                else:
                    out()

        self.for_(self.DVP // 8, body, unroll=True, name="j")
        if not split:
            return
        lead = self.cmp(self.t, 0, "eq")  # one thread of the quad holding the row
        for h in range(2):
            m = self.load(self.ml, [], h, name="m")
            lse = self.named(arith.AddfOp(m, self.named(xmath.LogOp(sums[h]))))
            lse = self.named(arith.SelectOp(some[h], lse, self.f32(float("-inf"))), "lse")
            cond = self.all_of([lead, row_ok[h]] if row_ok else [lead])

            def store(lse=lse, h=h) -> None:
                self.clone_region(self.op.lse, [lse, self.rows[h]])

            self.if_(cond, store)

def is_attention_kernel(kop: tile.KernelOp) -> bool:
    """An attention tile materialize-attention lowers: one whose attn.flash is not marked
    `wgmma` (materialize-attention-wgmma's)."""
    return any(isinstance(o, attn.FlashOp) and not o.is_wgmma for o in kop.walk())


@dataclass(frozen=True)
class MaterializeAttention(ModulePass):
    """Lower attention tile.kernels (attn.flash) of @main to flash-attention kernel.funcs."""

    name = "materialize-attention"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in op.body.block.ops if isinstance(f, func.FuncOp)]:
            kops = [
                k for k in fn.body.walk() if isinstance(k, tile.KernelOp) and is_attention_kernel(k)
            ]
            for kop in kops:
                low = FlashLowering(kop)
                kfunc = low.lower(target_smem(op))
                op.body.block.insert_op_before(kfunc, fn)
                Rewriter.replace_op(kop, K.LaunchOp(low.name, low.old_args))
