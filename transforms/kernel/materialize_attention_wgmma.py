"""materialize-attention-wgmma: lower each attention tile marked `wgmma` (tile-attention
`wgmma=1`) of @main to one flash-attention `kernel.func` on warpgroup MMA (sm_90a) and its
`kernel.launch`; materialize-attention lowers the other attention tiles.

One block is one warpgroup: R = 64 query rows, warp w holding rows 16 w .. 16 w + 15 in the
wgmma accumulator layout (the mma.sync fragment's, so flash_step's score epilogue, online softmax
and rescale run unchanged on it). The scores and P @ V run on `mma.wgmma` / `mma.wgmma_rs`, whose
B operands are K-major: the key tile as it is, the value tile transposed on its way into shared
memory. Its keys are permuted within each 8 so that the scores' accumulators are P's A fragment
as they stand (the accumulator holds keys 2t, 2t + 1 of each 8, the A fragment's k = t, t + 4):

    grid: block axes (x: the query block, heaviest first when causal), block 128 threads
    smem (dynamic, 1024-byte aligned buffers, #mma.swizzle<128>; DQ: depth rounded up to 32,
          DVP: value depth rounded up to 8, the padding zero):
        qs, qs_lo  [DQ / 32][64][32]   the query tile: TF32 hi part (in place) and 3xTF32's lo part
        ks, ks_lo  [DQ / 32][N][32]    key tile j likewise
        vt, vt_lo  [N / 32][DVP][32]   value tile j transposed; position p of each 8 holds key
                                       2p (p < 4) or 2 (p - 4) + 1
        vs         [N][DVP]            value tile j + 1 as it lands (plain f32)
    regs: sc [N / 2] (scores, then P's hi part), sc_chain [N / 2] (the scores' later chains),
          sc_lo [N / 2] (P's lo part), pv [DVP / 2] (P @ V of one key tile), o [DVP / 2], ml [4]

    fill qs, ks (keys 0..N), vs (keys 0..N); commit; wait; barrier
    split qs; split ks; fence.proxy.async; barrier
    for j < tiles (causal: through the tile holding the block's last row):
        wgmma fence; sc = Q K^T (chains of `chain` k-steps: lo*hi, hi*lo of each, then hi*hi); commit
        wait; barrier; vt, vt_lo = split(transpose(vs)); fence.proxy.async     (while the scores run)
        if j + 1 < tiles: barrier; fill vs (keys (j+1)N..); commit             (while the scores run)
        wgmma wait 0; sc += sc_chain; barrier
        if j + 1 < tiles: fill ks (keys (j+1)N..); commit
        sc = score(sc, l, s) (below the causal diagonal: without its mask; a positive constant
            scale left to the softmax, fold_scale); online softmax (exp2, both rows at once);
            sc, sc_lo = split(sc)
        wgmma fence; pv = P V (N / 8 k-steps of 8 keys: small terms, then hi*hi; A from sc, sc_lo); commit
        if j + 1 < tiles: wait for the copies; barrier; split ks; fence.proxy.async  (while P V runs)
        wgmma wait 0; o = o alpha + pv; barrier
    o / quad-sum(l) -> the output region (rows < L, columns < DV)

The copies are cp.async (16-byte chunks) where a region is a plain contiguous load, else element
by element (materialize_attention.async_source); rows past the queries or keys and columns past
the depths are zeros. Each chain of MMAs starts from `overwrite` and is added into fp32
registers: P @ V's chain is one key tile, the scores' `chain` k-steps (the schedule sets half the
depth). `precision "tf32"` drops the lo parts and terms.

Declines: attention tiles not marked `wgmma` (materialize-attention's). Errors (one line, an
AttentionLoweringError): more shared memory than the module's #kernel.target allows a block
(224 KiB at depth 128 and 64-key tiles), or the regions materialize-attention cannot lower.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import FloatAttr, Float32Type, IntAttr, MemRefType, ModuleOp, NoneAttr
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineExpr
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import attn, mma, tile
from dpl.dialects import kernel as K
from dpl.transforms.kernel.flash_step import largest_divisor
from dpl.transforms.kernel.lowering import amap, dims, drop_dead_arith
from dpl.transforms.kernel.materialize_attention import FlashLowering
from dpl.transforms.tile.target import target_smem
from dpl.transforms.tile.tile_attention import causal_select

APPROX = arith.FastMathFlagsAttr(["afn"])
"""exp2 as the SFU's approximation (ex2.approx: 2 ulp; measured 2 % faster on the probe, same error)."""
ALIGN = 1024
"""Bytes each swizzled buffer starts at a multiple of (and the slack the pool's start needs)."""


class WgmmaFlashLowering(FlashLowering):
    """Builds the warpgroup-MMA `kernel.func` of one attention `tile.kernel` (module doc)."""

    def __init__(self, kop: tile.KernelOp):
        super().__init__(kop)
        self.DQ = -(-self.D // 32) * 32
        self.x3 = self.precision == mma.Precision.TF32X3
        steps = self.DQ // 8
        self.chain_s = largest_divisor(steps, self.op.chain.data or steps)

    def lower(self, max_smem: int) -> K.KernelFuncOp:
        """The kernel.func (its launch takes `old_args`), using at most `max_smem` bytes of shared
        memory (the target's)."""
        self.emit_entry()
        self.fold_scale()
        self.emit_buffers_wgmma(max_smem)
        self.emit_body_wgmma()
        drop_dead_arith(self.func)
        return self.func

    def emit_buffers_wgmma(self, max_smem: int) -> None:
        f32 = Float32Type()
        offset = 0

        def smem(shape: list[int], name: str, swizzled: bool = True) -> SSAValue:
            nonlocal offset
            t = mma.swizzled_smem_type(shape) if swizzled else MemRefType(f32, shape, NoneAttr(), K.SMEM)
            v = self.named(K.SmemOp(t, offset), name)
            offset += -(-4 * shape[0] * shape[1] * (shape[2] if len(shape) > 2 else 1) // ALIGN) * ALIGN
            return v

        qa, ka, va = self.DQ // 32, self.DQ // 32, self.N // 32
        self.qs = smem([qa, self.R, 32], "qs")
        self.qs_lo = smem([qa, self.R, 32], "qs_lo") if self.x3 else None
        self.ks = smem([ka, self.N, 32], "ks")
        self.ks_lo = smem([ka, self.N, 32], "ks_lo") if self.x3 else None
        self.vt = smem([va, self.DVP, 32], "vt")
        self.vt_lo = smem([va, self.DVP, 32], "vt_lo") if self.x3 else None
        self.vs = smem([self.N, self.DVP], "vs", swizzled=False)
        total = offset + ALIGN  # slack: the printer rounds the pool's start up to 1024 bytes
        assert total == attn.wgmma_smem_bytes(self.N, self.D, self.DV, self.precision)
        if total > max_smem:
            self.error(f"needs {total} bytes of shared memory, more than {max_smem}")
        self.func.smem = IntAttr(total)

        def regs(n: int, name: str) -> SSAValue:
            return self.named(K.AllocaOp(MemRefType(f32, [n])), name)

        self.o = regs(self.DVP // 2, "o")
        self.sc = regs(self.N // 2, "sc")
        self.ml = regs(4, "ml")
        self.tmp = regs(self.N // 2, "sc_chain") if self.chain_s < self.DQ // 8 else None
        self.sc_lo = regs(self.N // 2, "sc_lo") if self.x3 else None
        self.pv = regs(self.DVP // 2, "pv")

    # -- shared tiles ---------------------------------------------------------------------------

    def fill_swizzled(self, dst: SSAValue, name: str, base: SSAValue, rows: int, limit: int) -> None:
        """dst[c / 32][r][c % 32] = region(base + r, c) for r < rows, c < DQ (0 past D or limit)."""
        d0, d1 = dims(2)
        self.fill(dst, name, base, rows, self.D, self.DQ, limit, at=(d1 // 32, d0, d1 % 32), by_column=True)

    def split_swizzled(self, buf: SSAValue, lo: SSAValue | None, rows: int) -> None:
        """buf = tf32(x) in place, lo = tf32(x - hi), 16 bytes per thread in turn (the split is
        element-wise, so the chunks go in buffer order)."""
        d0, d1 = dims(2)
        atoms = buf.type.get_shape()[0]  # type: ignore[union-attr]

        # thread tid's chunks: column 4 (tid % 8) of rows tid / 8 + NT / 8 * i (rows counted
        # across the atoms), so that only the row offset changes from chunk to chunk
        row = d0 // 8 + d1 * (self.NT // 8)
        where = amap(2, row // rows, row % rows, (d0 % 8) * 4)

        def body(i: SSAValue) -> None:
            at = [self.tid, i]
            x = self.named(K.LoadOp(buf, at, where, vector=4))
            parts = [self.split(self.named(K.ExtractOp(x, e))) for e in range(4)]
            self.emit(K.StoreOp(self.named(K.PackOp([h for h, _ in parts])), buf, at, where))
            if lo is not None:
                rests = [r for _, r in parts]
                self.emit(K.StoreOp(self.named(K.PackOp(rests)), lo, at, where))  # type: ignore[arg-type]

        assert self.NT % 8 == 0 and atoms * rows * 8 % self.NT == 0
        self.for_(atoms * rows * 8 // self.NT, body, unroll=True, name="si")

    def transpose_values(self) -> None:
        """vt[p / 32][c][p % 32] (and vt_lo) = the TF32 parts of vs[key(p)][c], 4 positions
        (one 16-byte store) per thread in turn: positions 4u .. 4u + 3 are keys
        8 (u / 2) + u % 2 + 0, 2, 4, 6 (module doc)."""
        d0, d1 = dims(2)

        def body(i: SSAValue) -> None:
            if self.NT == self.DVP:  # thread tid transposes column tid, quad i
                c, u = self.tid, i
            elif self.NT % self.DVP == 0:
                c = self.expr_value(d0 % self.DVP, [self.tid], "c")
                u = self.expr_value(d0 // self.DVP + d1 * (self.NT // self.DVP), [self.tid, i], "u")
            else:
                q = self.expr_value(d0 + d1 * self.NT, [self.tid, i], "q")
                c = self.expr_value(d0 % self.DVP, [q], "c")
                u = self.expr_value(d0 // self.DVP, [q], "u")
            parts = []
            for e in range(4):
                key = self.expr_value(d0 // 2 * 8 + d0 % 2 + 2 * e, [u], "key")
                parts.append(self.split(self.load(self.vs, [key, c], d0, d1)))
            at = [u, c]
            where = ((d0 * 4) // 32, d1, (d0 * 4) % 32)
            self.emit(K.StoreOp(self.named(K.PackOp([h for h, _ in parts])), self.vt, at, amap(2, *where)))
            if self.vt_lo is not None:
                rests = [r for _, r in parts]
                self.emit(K.StoreOp(self.named(K.PackOp(rests)), self.vt_lo, at, amap(2, *where)))  # type: ignore[arg-type]

        self.for_chunks(self.DVP * self.N // 4, body, "ti")

    # -- the MMAs -------------------------------------------------------------------------------

    def score_chain(self, acc: SSAValue, first: int) -> None:
        """acc = Q K^T over k-steps first .. first + chain_s - 1 (8 depth columns each): with
        3xTF32 the small terms of every step (lo*hi, hi*lo) first, then the hi*hi terms, so the
        truncation of each sum into acc is relative to the small terms' total until the large
        ones come (as materialize-mma orders them)."""
        terms = [(self.qs, self.ks)]
        if self.x3:
            terms = [(self.qs_lo, self.ks), (self.qs, self.ks_lo), (self.qs, self.ks)]
        groups = [terms[:-1], terms[-1:]] if self.x3 else [terms]
        start = True
        for group in groups:
            for kk in range(first, first + self.chain_s):
                at = (kk // 4, 0, kk % 4 * 8)
                for a, b in group:
                    self.emit(mma.WgmmaOp(self.N, acc, a, [], amap(0, *at), b, [], amap(0, *at), start))  # type: ignore[arg-type]
                    start = False

    def scores_issue(self) -> None:
        """Issue sc = Q K^T: chain 0 into sc, each later chain into sc_chain (folded into sc
        before the next one where there are more than two)."""
        steps = self.DQ // 8
        chains = steps // self.chain_s
        self.emit(mma.WgmmaFenceOp())
        for ch in range(chains):
            acc = self.sc if ch == 0 else self.tmp
            assert acc is not None
            if ch >= 2:  # sc_chain still holds chain ch - 1: fold it first
                self.emit(mma.WgmmaCommitOp())
                self.emit(mma.WgmmaWaitOp(0))
                self.add_into(self.sc, acc, self.N // 2)
                self.emit(mma.WgmmaFenceOp())
            self.score_chain(acc, ch * self.chain_s)
        self.emit(mma.WgmmaCommitOp())

    def scores_done(self) -> None:
        self.emit(mma.WgmmaWaitOp(0))
        if self.tmp is not None:
            self.add_into(self.sc, self.tmp, self.N // 2)

    def pv_issue(self) -> None:
        """Issue pv = P V over the key tile: k-step kk's A fragment is sc[4 kk + (0, 2, 1, 3)]
        (rows g, g + 8 at k = t, then at k = t + 4: keys 2t, 2t + 1, which vt holds at positions
        t, t + 4); with 3xTF32 the small terms of every k-step first, then hi*hi."""
        self.emit(mma.WgmmaFenceOp())
        steps = []
        for kk in range(self.N // 8):
            at = (kk // 4, 0, kk % 4 * 8)
            hi = [self.load(self.sc, [], 4 * kk + i) for i in (0, 2, 1, 3)]
            lo = [self.load(self.sc_lo, [], 4 * kk + i) for i in (0, 2, 1, 3)] if self.x3 else None
            steps.append((at, hi, lo))
        groups = ([[("lo", "vt"), ("hi", "vt_lo")], [("hi", "vt")]] if self.x3 else [[("hi", "vt")]])
        start = True
        for group in groups:
            for at, hi, lo in steps:
                for fa, fb in group:
                    a = hi if fa == "hi" else lo
                    b = self.vt if fb == "vt" else self.vt_lo
                    self.emit(mma.WgmmaRsOp(self.DVP, self.pv, a, b, [], amap(0, *at), start))  # type: ignore[arg-type]
                    start = False
        self.emit(mma.WgmmaCommitOp())

    # -- the scores' epilogue -------------------------------------------------------------------

    def unmasked_score(self) -> SSAValue | None:
        """The score region's value before its causal mask: `v` of a yielded
        select(s > l, -inf, v) (tile_attention.causal_select; None: no such mask)."""
        block = self.op.score.block
        y = block.last_op.operands[0]  # type: ignore[union-attr]
        _, l, s = block.args
        if not (self.op.is_causal and causal_select(y, l, s)):
            return None
        return y.owner.rhs  # type: ignore[union-attr]

    def fold_scale(self) -> None:
        """Leave the score region's positive constant scale to the softmax: where the region's
        value (before its causal mask) is score * c with c > 0, sc keeps the raw score and the
        softmax multiplies by c log2 e in the one multiply-add before exp2 (the maxima of the
        raw scores times c are those of the scaled ones, c being positive). Not with a split
        over the keys, whose log-sum-exp takes the scaled maxima (attn.wgmma_decline has none)."""
        if self.op.lse is not None:
            return
        block = self.op.score.block
        y = block.last_op.operands[0]  # type: ignore[union-attr]
        value = self.unmasked_score() or y
        mul = value.owner
        if not isinstance(mul, arith.MulfOp):
            return
        for raw, c in ((mul.lhs, mul.rhs), (mul.rhs, mul.lhs)):
            const = c.owner
            if (raw is block.args[0] and isinstance(const, arith.ConstantOp)
                    and isinstance(const.value, FloatAttr) and 0 < const.value.value.data < math.inf):  # fmt: skip
                self.softmax_scale = const.value.value.data
                self.score_bind = {mul.result: raw}
                return

    def scores_epilogue(self, s0: SSAValue) -> None:
        """The score region on sc; a key tile below the causal diagonal (and S) skips the mask
        (and, the scale left to the softmax, the whole region)."""
        value = self.unmasked_score()
        if value is None:
            return self.score_epilogue(s0)
        d0 = AffineExpr.dimension(0)
        below = self.cmp(self.expr_value(d0 + (self.N - 1), [s0], "s_last"), self.vm[self.op.first_row], "ule")
        if self.S % self.N:
            inside = self.cmp(self.expr_value(d0 + self.N, [s0], "s_end"), self.S, "ule")
            below = self.named(arith.AndIOp(below, inside))
        if value in self.score_bind:  # below the diagonal sc holds the score as it stands
            above = self.named(arith.XOrIOp(below, self.named(arith.ConstantOp.from_int_and_width(1, 1))))
            return self.if_(above, lambda: self.score_epilogue(s0))
        self.if_(below, lambda: self.score_epilogue(s0, value), lambda: self.score_epilogue(s0))

    # -- the online softmax ----------------------------------------------------------------------

    def tree(self, vals: list[SSAValue], op) -> SSAValue:
        """Combine `vals` pairwise (a tree: short dependency chains)."""
        while len(vals) > 1:
            nxt = [self.named(op(a, b)) for a, b in zip(vals[::2], vals[1::2])]
            vals = nxt + (vals[-1:] if len(vals) % 2 else [])
        return vals[0]

    def softmax_rows(self) -> list[SSAValue]:
        """The online softmax of both of the thread's rows at once (flash_step.online_softmax's
        math, the rows interleaved and reduced as trees: one warp an SM scheduler has no other
        warp to hide a chain behind): m' = max(m, rowmax sc) (quad shuffles), alpha =
        exp2((m - m') c log2 e), sc = exp2(fma(sc, c log2 e, -(m' c log2 e))) (c: the
        softmax_scale that fold_scale left to it, else 1; fastmath afn: the SFU's approximation),
        l = fma(l, alpha, rowsum sc) (a row whose scores are all -inf so far uses 0 as its max).
        Returns the alphas."""
        log2e = self.f32(math.log2(math.e) * self.softmax_scale)
        neg_log2e = self.f32(-math.log2(math.e) * self.softmax_scale)
        ninf, zero = self.f32(float("-inf")), self.f32(0.0)
        xs = [[self.load(self.sc, [], 4 * n + 2 * h + e) for n in range(self.N // 8) for e in range(2)]
              for h in range(2)]  # fmt: skip
        alphas = []
        for h in range(2):
            mx = self.tree(list(xs[h]), arith.MaximumfOp)
            for off in (1, 2):
                mx = self.named(arith.MaximumfOp(mx, self.named(K.ShuffleXorOp(mx, off))))
            m_old = self.load(self.ml, [], h, name="m")
            m_new = self.named(arith.MaximumfOp(m_old, mx), "m_new")
            self.store(m_new, self.ml, [], h)
            none = self.named(arith.CmpfOp(m_new, ninf, "oeq"))
            m_use = self.named(arith.SelectOp(none, zero, m_new), "m_use")
            nm2 = self.named(arith.MulfOp(m_use, neg_log2e), "nm2")  # -(m' c log2 e), exactly
            diff = self.named(arith.MulfOp(self.named(arith.SubfOp(m_old, m_use)), log2e))
            alphas.append(self.named(xmath.Exp2Op(diff, APPROX), f"alpha{h}"))
            ps = []
            for i, x in enumerate(xs[h]):
                p = self.named(xmath.Exp2Op(self.named(xmath.FmaOp(x, log2e, nm2)), APPROX))
                n, e = divmod(i, 2)
                self.store(p, self.sc, [], 4 * n + 2 * h + e)
                ps.append(p)
            total = self.tree(ps, arith.AddfOp)
            l_old = self.load(self.ml, [], 2 + h, name="l")
            self.store(self.named(xmath.FmaOp(l_old, alphas[h], total)), self.ml, [], 2 + h)
        return alphas

    def rescale_add(self, alphas: list[SSAValue]) -> None:
        """o = fma(o, alpha, pv) (the key tile's P @ V into the rescaled fp32 output)."""
        d0 = AffineExpr.dimension(0)

        def body(j: SSAValue) -> None:
            for i in range(4):
                o = self.load(self.o, [j], d0 * 4 + i)
                pv = self.load(self.pv, [j], d0 * 4 + i)
                self.store(self.named(xmath.FmaOp(o, alphas[i // 2], pv)), self.o, [j], d0 * 4 + i)

        self.for_(self.DVP // 8, body, unroll=True, name="j")

    # -- the kernel -----------------------------------------------------------------------------

    def emit_body_wgmma(self) -> None:
        d0 = AffineExpr.dimension(0)
        l0, nt = self.emit_state()

        self.fill_swizzled(self.qs, "query", l0, self.R, self.L)
        self.fill_swizzled(self.ks, "key", self.const(0), self.N, self.S)
        self.fill(self.vs, "value", self.const(0), self.N, self.DV, self.DVP, self.S, by_column=True)
        self.commit()
        self.wait()
        self.emit(K.BarrierOp())
        self.split_swizzled(self.qs, self.qs_lo, self.R)
        self.split_swizzled(self.ks, self.ks_lo, self.N)
        self.emit(mma.FenceProxyAsyncOp())
        self.emit(K.BarrierOp())

        def step(j: SSAValue) -> None:
            s0 = self.expr_value(d0 * self.N, [j], "s0")
            nxt = self.expr_value(d0 + 1, [j], "next")
            s1 = self.expr_value(d0 * self.N, [nxt], "s1")
            bound = self.const(nt) if isinstance(nt, int) else nt
            more = None if nt == 1 else self.cmp(nxt, bound, "ult", "more")
            self.scores_issue()
            self.wait()
            self.emit(K.BarrierOp())
            self.transpose_values()
            self.emit(mma.FenceProxyAsyncOp())

            def fetch_values() -> None:  # vs is free once every thread has transposed it
                self.emit(K.BarrierOp())
                self.fill(self.vs, "value", s1, self.N, self.DV, self.DVP, self.S, by_column=True)
                self.commit()

            def fetch_keys() -> None:
                self.fill_swizzled(self.ks, "key", s1, self.N, self.S)
                self.commit()

            if more is not None:
                self.if_(more, fetch_values)
            self.scores_done()
            self.emit(K.BarrierOp())
            if more is not None:
                self.if_(more, fetch_keys)
            self.scores_epilogue(s0)
            alphas = self.softmax_rows()
            self.split_p()
            self.pv_issue()

            def split_next() -> None:
                if self.any_async:
                    self.emit(K.CpAsyncWaitOp(0))
                self.emit(K.BarrierOp())
                self.split_swizzled(self.ks, self.ks_lo, self.N)
                self.emit(mma.FenceProxyAsyncOp())

            if more is not None:
                self.if_(more, split_next)
            self.emit(mma.WgmmaWaitOp(0))
            self.rescale_add(alphas)
            self.emit(K.BarrierOp())

        self.for_(nt, step, name="j")
        self.epilogue()


def is_wgmma_kernel(kop: tile.KernelOp) -> bool:
    return any(isinstance(o, attn.FlashOp) and o.is_wgmma for o in kop.walk())


@dataclass(frozen=True)
class MaterializeAttentionWgmma(ModulePass):
    """Lower wgmma attention tile.kernels (attn.flash wgmma) of @main to warpgroup-MMA flash kernel.funcs."""

    name = "materialize-attention-wgmma"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in op.body.block.ops if isinstance(f, func.FuncOp)]:
            kops = [k for k in fn.body.walk() if isinstance(k, tile.KernelOp) and is_wgmma_kernel(k)]
            for kop in kops:
                low = WgmmaFlashLowering(kop)
                kfunc = low.lower(target_smem(op))
                op.body.block.insert_op_before(kfunc, fn)
                Rewriter.replace_op(kop, K.LaunchOp(low.name, low.old_args))
