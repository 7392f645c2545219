"""The per-key-tile math of materialize-attention's flash kernel, on register fragments.

`FlashStep` is an `Emitter` (lowering.py) for one `attn.flash`: its sizes, the register and
shared buffers the kernel builder (materialize_attention.FlashLowering) allocates, and the steps
of one key tile, in the mma.sync m16n8k8 fragment (thread (g, t) of warp w holds rows g and
g + 8 of the warp's 16, columns 2t and 2t + 1 of every 8-column tile):

    scores          sc = Q K^T             mma.sync (3xTF32: lo*hi, hi*lo, hi*hi per k-step of 8,
                                           `chain` k-steps per fresh fragment added into sc)
    score_epilogue  sc = score(sc, l, s)   the score region (scale, mask); keys >= S: -inf
    online_softmax  m' = max(m, rowmax sc) (quad shuffles); alpha = exp(m - m'); sc = exp(sc - m');
                    l = l alpha + rowsum sc
    rescale         o *= alpha
    pv_step         o += P V               P from sc (keys 2t, 2t + 1 of each 8 as the A fragment's
                                           k = t, t + 4), V from vs; per group of 8-column tiles
                                           of o (pv_group), chunks of `chain` k-steps into a fresh
                                           fragment of that group, added into o

Where the kernel builder splits the key and value tiles in shared memory (`presplit`), the B
fragments load their hi part from ks / vs and their lo part from ks_lo / vs_lo (split_operand).
With `qsplit` the query tile is split once likewise (qs / qs_lo); with several column groups in
P @ V (head dim > 64) P is split once per key tile (hi in sc, lo in sc_lo), not once per group.
With `wide` the scores' fragments (and at wide 2 P @ V's B values) are 16-byte loads: `wide_kgroup`
and `column`.
A row whose scores are all -inf so far uses 0 as its max (no NaN from -inf - -inf).
`precision ieee` computes the same fragments with fp32 FMAs (simt_scores, simt_pv: the P @ V
rows shared within each quad by shuffles). The attn.flash regions are cloned into kernel ops
(`clone_region`): loads, stores, affine.apply and scalar arith/math; any other op is a one-line
AttentionLoweringError.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NoReturn

from xdsl.dialects import affine, arith
from xdsl.dialects import math as xmath
from xdsl.ir import Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr

from dpl.dialects import attn, mma, tile
from dpl.dialects import kernel as K
from dpl.dialects.loop import CombineKind
from dpl.transforms.kernel.kernel_twin import kernel_twin
from dpl.transforms.kernel.lowering import Emitter, amap, dims

GROUP = 4
"""n-tiles whose MMAs are issued term by term together (independent accumulators in flight)."""
WIDE_GROUP = 1
"""n-tiles of the scores whose B fragments of a wide k-group (4 k-steps) are loaded together."""
_OEQ = 1
PRESPLIT_DEPTH = 128
"""Value depths from which the key and value tiles are split into TF32 parts once per tile in
shared memory. P @ V splits 2 DV / 8 values of V per thread per k-step against 4 of P: at head
dim 128 that work dominates, and 2 blocks of 4 warps per SM (what 170-190 registers allow) still
fit the doubled tiles; at head dim 64 the undoubled kernel fits 3 blocks (168 registers, 51 KiB),
the doubled one 2 (85 KiB; ptxas: 191 registers)."""


class AttentionLoweringError(ValueError):
    """An attention tile materialize-attention cannot lower; the message is one line."""


def largest_divisor(n: int, at_most: int) -> int:
    return max(d for d in range(1, min(n, at_most) + 1) if n % d == 0)


class FlashStep(Emitter):
    """Emits one key tile's steps of an `attn.flash` into a kernel.func (module doc)."""

    # Set by the kernel builder before the steps are emitted: shared tiles, register arrays,
    # the thread's fragment coordinates and its two query rows.
    qs: SSAValue
    ks: SSAValue
    vs: SSAValue
    o: SSAValue
    sc: SSAValue
    ml: SSAValue
    """m (running max) of the thread's rows 0 and 1, then l (running sum) of each."""
    ks_lo: SSAValue | None
    vs_lo: SSAValue | None
    qs_lo: SSAValue | None
    """3xTF32 with the query tile split once (`qsplit`): its lo part (qs then holds the hi part)."""
    """3xTF32: the lo parts of the key and value tiles (ks and vs then hold the hi parts)."""
    tmp: SSAValue | None
    sc_lo: SSAValue | None
    """Where P @ V has several column groups (pv_groups > 1): P's lo part (sc then holds its hi
    part), split once per key tile instead of once per group."""
    pv: SSAValue | None
    """The P @ V chain fragment of one column group (4 pv_group registers)."""
    w: SSAValue
    g: SSAValue
    t: SSAValue
    rows: list[SSAValue]

    def __init__(self, kfunc: K.KernelFuncOp, op: attn.FlashOp):
        super().__init__(kfunc)
        self.op = op
        self.R, self.L, self.S = op.size("rows"), op.size("queries"), op.size("keys")
        self.N, self.D, self.DV = op.size("tile"), op.size("depth"), op.size("value_depth")
        self.W = self.R // attn.MMA_ROWS
        self.NT = 32 * self.W
        self.DP, self.DVP = -(-self.D // 8) * 8, -(-self.DV // 8) * 8
        chain = op.chain.data
        self.chain_s = largest_divisor(self.DP // 8, chain or self.DP // 8)
        self.chain_v = largest_divisor(self.N // 8, chain or self.N // 8)
        # P @ V's chain fragment: the whole row of o (DVP / 2 registers) up to 32 registers,
        # else per group of GROUP 8-column tiles (head dim 128: o's 64 registers and a second 64
        # for the fragment left no room for a 64-key tile)
        self.pv_group = self.DVP // 8 if self.DVP <= 64 else largest_divisor(self.DVP // 8, GROUP)
        self.precision = op.precision.data
        self.simt = self.precision == mma.Precision.IEEE
        # value depth >= PRESPLIT_DEPTH: the key and value tiles are split into TF32 parts once
        # per tile in shared memory (the hi part in place, 3xTF32's lo parts in ks_lo and vs_lo),
        # not per warp per MMA
        self.presplit = not self.simt and self.DVP >= PRESPLIT_DEPTH
        # 128-bit fragment loads (attn.wide_fragments_decline): the scores' (groups of 4 k-steps),
        # and at wide 2 P @ V's (groups of 4 column tiles, whose columns are permuted within each
        # group; ptxas: 247 registers at rows 64 tile 32 with chains of 4 and 8, spilling with both)
        # the query tile split into its TF32 parts once, in shared memory, not per key tile
        self.qsplit = not self.simt and op.is_qsplit
        self.wide = op.wide_level >= 1
        self.wide_pv = op.wide_level == 2
        self.split_lo = self.presplit and self.precision == mma.Precision.TF32X3
        self.vm: dict[SSAValue, SSAValue] = {}
        """Tile-level values (the kernel's arguments, axes, constants) -> their kernel values."""
        self.softmax_scale = 1.0
        """The factor the softmax applies to sc (sc holds score / softmax_scale, and so do the
        running maxima): 1 where the score region applies all of it (materialize-attention-wgmma
        leaves a positive constant scale to its softmax, folded into exp2's multiplier, where
        the kernel has no split over the keys)."""
        self.score_bind: dict[SSAValue, SSAValue] = {}
        """Values of the score region bound before it is cloned, their ops skipped (the product
        of the raw score and the scale the softmax applies, bound to the raw score)."""

    def column(self, j: AffineExpr, t: AffineExpr, e: int) -> AffineExpr:
        """The value column of o[4 j + 2 h + e] for the thread of quad lane t: column 2t + e of
        8-column tile j, or where P @ V's fragments are wide, 32 (j / 4) + 4 (2t + e) + j % 4."""
        if self.wide_pv:
            return (j // 4) * 32 + t * 8 + 4 * e + j % 4
        return j * 8 + t * 2 + e

    def error(self, what: str) -> NoReturn:
        raise AttentionLoweringError(f"materialize-attention: @{self.name}: {what}")

    # -- the attn.flash regions -----------------------------------------------------------------

    def clone(self, op: Operation, m: dict[SSAValue, SSAValue]) -> None:
        """Emit tile-level `op` (a load, store, affine.apply or region-free arith/math op) as
        kernel IR, operands through `m` (which gains its results)."""

        def get(v: SSAValue) -> SSAValue:
            return m.get(v, v)

        if isinstance(op, affine.ApplyOp):
            m[op.result] = self.expr_value(op.map.data.results[0], [get(v) for v in op.mapOperands],
                                           op.result.name_hint or "")  # fmt: skip
            return
        new = kernel_twin(op, get) if not isinstance(op, tile.AtomicOp) else None
        if new is None:
            self.error(f"'{op.name}' cannot be lowered from an attention region")
        self.emit(new)
        for old, r in zip(op.results, new.results):
            r.name_hint = old.name_hint
            m[old] = r

    def clone_region(self, region: Region, args: Sequence[SSAValue], result: SSAValue | None = None,
                     bind: dict[SSAValue, SSAValue] | None = None) -> list[SSAValue]:  # fmt: skip
        """Emit a region's ops (not its yield) with its arguments bound to `args`, other values
        through `vm`; returns the yielded values (`result`: that value of the region instead).
        `bind`: region values given as (region) values, their ops not emitted."""
        m = dict(self.vm)
        block = region.block
        for a, v in zip(block.args, args):
            m[a] = v
        for old, new in (bind or {}).items():
            m[old] = m.get(new, new)
        for op in block.ops:
            if op is block.last_op:
                return [m.get(v, v) for v in ([result] if result is not None else op.operands)]
            if not (bind and op.results and all(r in bind for r in op.results)):
                self.clone(op, m)
        return []

    # -- tensor-core helpers --------------------------------------------------------------------

    def zero_regs(self, buf: SSAValue, n: int) -> None:
        zero = self.f32(0.0)
        d0 = AffineExpr.dimension(0)
        self.for_(n, lambda i: self.store(zero, buf, [i], d0), unroll=True, name="z")

    def split(self, v: SSAValue) -> tuple[SSAValue, SSAValue | None]:
        hi = self.named(mma.Tf32Op(v))
        if self.precision == mma.Precision.TF32:
            return hi, None
        rem = self.named(arith.SubfOp(v, hi))
        return hi, self.named(mma.Tf32Op(rem))

    def split_operand(self, buf: SSAValue, lo: SSAValue | None, indices: Sequence[SSAValue],
                      *exprs: AffineExpr | int, pre: bool | None = None) -> tuple[SSAValue, SSAValue | None]:
        """The TF32 parts of buf[exprs]: loaded from a pre-split tile (buf: hi, lo: lo) where
        the tiles are split in shared memory (`pre`, by default the key and value tiles'
        `presplit`), else split here."""
        if not (self.presplit if pre is None else pre):
            return self.split(self.load(buf, indices, *exprs))
        hi = self.load(buf, indices, *exprs)
        return hi, (self.load(lo, indices, *exprs) if lo is not None else None)

    def load4(self, buf: SSAValue, indices: Sequence[SSAValue], *exprs: AffineExpr | int) -> list[SSAValue]:
        """The 4 consecutive floats at buf[exprs] (one 16-byte load)."""
        v = self.named(K.LoadOp(buf, list(indices), amap(len(indices), *exprs), vector=4))
        return [self.named(K.ExtractOp(v, e)) for e in range(4)]

    def split_operand4(self, buf: SSAValue, lo: SSAValue | None, indices: Sequence[SSAValue],
                       *exprs: AffineExpr | int, pre: bool | None = None) -> list[tuple[SSAValue, SSAValue | None]]:
        """split_operand of the 4 consecutive floats at buf[exprs], each part one 16-byte load."""
        if not (self.presplit if pre is None else pre):
            return [self.split(x) for x in self.load4(buf, indices, *exprs)]
        his = self.load4(buf, indices, *exprs)
        los = self.load4(lo, indices, *exprs) if lo is not None else [None] * 4
        return list(zip(his, los))

    def mma_terms(self, a: list, bs: dict[int, list], acc: SSAValue, slot) -> None:
        """For each n of `bs`: acc[slot(n, 0..3)] += A * B_n (3xTF32: lo*hi, hi*lo, hi*hi)."""
        ahi = [x[0] for x in a]
        terms = [("hi", "hi")]
        if self.precision == mma.Precision.TF32X3:
            terms = [("lo", "hi"), ("hi", "lo"), ("hi", "hi")]
        for ta, tb in terms:
            av = ahi if ta == "hi" else [x[1] for x in a]
            for n, b in bs.items():
                bv = [x[0] for x in b] if tb == "hi" else [x[1] for x in b]
                idx = [slot(n, i) for i in range(4)]
                cs = [self.load(acc, *ix) for ix in idx]
                ds = self.emit(mma.MmaSyncOp(av, bv, cs)).results
                for dv, ix in zip(ds, idx):
                    self.store(dv, acc, *ix)

    def add_into(self, dst: SSAValue, src: SSAValue, n: int) -> None:
        """dst[i] += src[i] for i < n (a chain's fragment into the fp32 registers)."""
        d0 = AffineExpr.dimension(0)

        def add(i: SSAValue) -> None:
            total = self.named(arith.AddfOp(self.load(dst, [i], d0), self.load(src, [i], d0)))
            self.store(total, dst, [i], d0)

        self.for_(n, add, unroll=True, name="z")

    # -- one key tile ---------------------------------------------------------------------------

    def scores(self) -> None:
        """sc = Q K^T for this key tile (chains of chain_s k-steps)."""
        d0, d1, d2, d3 = dims(4)
        self.zero_regs(self.sc, self.N // 2)
        if self.simt:
            return self.simt_scores()
        nch = (self.DP // 8) // self.chain_s
        dst = self.tmp if nch > 1 else self.sc
        assert dst is not None

        def chain(ch: SSAValue | None) -> None:
            if nch > 1:
                self.zero_regs(dst, self.N // 2)

            def kstep(kk: SSAValue) -> None:
                k8 = kk if ch is None else self.expr_value(d0 * self.chain_s + d1, [ch, kk], "k8")
                a = []
                for i in range(4):  # a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)
                    a.append(self.split_operand(self.qs, self.qs_lo, [self.w, self.g, self.t, k8],
                                                d0 * 16 + d1 + 8 * (i % 2), d3 * 8 + d2 + 4 * (i // 2),
                                                pre=self.qsplit))  # fmt: skip
                for start in range(0, self.N // 8, GROUP):
                    bs = {}
                    for n in range(start, min(start + GROUP, self.N // 8)):
                        # b0 (k=t, n=g), b1 (k=t+4)
                        bs[n] = [
                            self.split_operand(self.ks, self.ks_lo, [self.g, self.t, k8], d0 + 8 * n,
                                               d2 * 8 + d1 + 4 * e)
                            for e in range(2)
                        ]  # fmt: skip
                    self.mma_terms(a, bs, dst, lambda n, i: ([], 4 * n + i))

            if self.wide:
                self.for_(self.chain_s // 4, lambda q: self.wide_kgroup(ch, q, dst), unroll=True,
                          name="kq")  # fmt: skip
            else:
                self.for_(self.chain_s, kstep, unroll=True, name="kk")
            if nch > 1:
                self.add_into(self.sc, dst, self.N // 2)

        if nch > 1:
            self.for_(nch, chain, unroll=True, name="ch")
        else:
            chain(None)

    def wide_kgroup(self, ch: SSAValue | None, q: SSAValue, dst: SSAValue) -> None:
        """dst += Q K^T over the 4 k-steps of depth group k32 = ch chain_s / 4 + q (32 columns):
        thread t holds depth columns 32 k32 + 8t + 4u + e (u, e < 4: two 16-byte loads, u = 0
        then 1) of its rows and keys, and k-step s = 2u + e / 2 takes e = 0, 2 as the fragment's
        k = t and e = 1, 3 as k = t + 4 (A and B agree on the order, so the sum over the depth
        is the same)."""
        d0, d1, d2, d3 = dims(4)
        k32 = q if ch is None else self.expr_value(d0 * (self.chain_s // 4) + d1, [ch, q], "k32")
        for u in range(2):
            # A: xs[h][e], rows g + 8h
            xs = [self.split_operand4(self.qs, self.qs_lo, [self.w, self.g, self.t, k32], d0 * 16 + d1 + 8 * h,
                                      d3 * 32 + d2 * 8 + 4 * u, pre=self.qsplit)
                  for h in range(2)]  # fmt: skip
            # a0 (g, k=t), a1 (g+8, k=t), a2 (g, k=t+4), a3 (g+8, k=t+4) of k-steps 2u, 2u + 1
            a = [[xs[h][2 * s + p] for p in range(2) for h in range(2)] for s in range(2)]
            for start in range(0, self.N // 8, WIDE_GROUP):
                bs = {}
                for n in range(start, min(start + WIDE_GROUP, self.N // 8)):
                    # b0 (k=t, n=g), b1 (k=t+4): key 8n + g
                    bs[n] = self.split_operand4(self.ks, self.ks_lo, [self.g, self.t, k32], d0 + 8 * n,
                                                d2 * 32 + d1 * 8 + 4 * u)  # fmt: skip
                for s in range(2):
                    self.mma_terms(a[s], {n: b[2 * s: 2 * s + 2] for n, b in bs.items()}, dst,
                                   lambda n, i: ([], 4 * n + i))  # fmt: skip

    def simt_scores(self) -> None:
        d0, d1, d2 = dims(3)

        def step(c: SSAValue) -> None:
            wgc = [self.w, self.g, c]
            q = [self.load(self.qs, wgc, d0 * 16 + d1 + 8 * h, d2) for h in range(2)]
            for n in range(self.N // 8):
                k = [self.load(self.ks, [self.t, c], d0 * 2 + 8 * n + e, d1) for e in range(2)]
                for h in range(2):
                    for e in range(2):
                        i = 4 * n + 2 * h + e
                        acc = self.load(self.sc, [], i)
                        prod = self.named(arith.MulfOp(q[h], k[e]))
                        self.store(self.named(arith.AddfOp(acc, prod)), self.sc, [], i)

        self.for_(self.D, step, name="c")

    def score_epilogue(self, s0: SSAValue, value: SSAValue | None = None) -> None:
        """sc = score(sc, row, key) for key tile s0; keys >= S: -inf. `value`: store that value
        of the score region instead of what it yields, for a tile whose keys all lie below S (no
        key guard)."""
        d0, d1, d2 = dims(3)
        ninf = self.f32(float("-inf"))
        rows = self.rows
        if self.L % self.R:
            last = self.const(self.L - 1)
            rows = [self.named(arith.MinSIOp(r, last)) for r in rows]

        def body(n: SSAValue) -> None:
            for i in range(4):
                x = self.load(self.sc, [n], d0 * 4 + i)
                s = self.expr_value(d0 + d1 * 8 + d2 * 2 + i % 2, [s0, n, self.t], "key")
                s_eval = s
                guard = self.S % self.N and value is None
                if guard:  # keys past S: evaluate at the last key, then -inf
                    s_eval = self.named(arith.MinSIOp(s, self.const(self.S - 1)))
                (y,) = self.clone_region(self.op.score, [x, rows[i // 2], s_eval], value, self.score_bind)
                if guard:
                    y = self.named(arith.SelectOp(self.cmp(s, self.S, "ult"), y, ninf))
                self.store(y, self.sc, [n], d0 * 4 + i)

        self.for_(self.N // 8, body, unroll=True, name="n")

    def online_softmax(self) -> list[SSAValue]:
        """Per row h: the new running max m', alpha = exp(m - m'), sc = exp(sc - m'),
        l = l alpha + rowsum(sc); returns the alphas."""
        d0 = AffineExpr.dimension(0)
        ninf, zero = self.f32(float("-inf")), self.f32(0.0)
        alphas = []
        for h in range(2):
            def rowmax(n: SSAValue, h=h) -> SSAValue:
                a = self.load(self.sc, [n], d0 * 4 + 2 * h)
                b = self.load(self.sc, [n], d0 * 4 + 2 * h + 1)
                return self.named(arith.MaximumfOp(a, b))

            mx = self.reduce_for(self.N // 8, CombineKind.MAX, rowmax, name="n")
            for off in (1, 2):
                mx = self.named(arith.MaximumfOp(mx, self.named(K.ShuffleXorOp(mx, off))))
            m_old = self.load(self.ml, [], h, name="m")
            m_new = self.named(arith.MaximumfOp(m_old, mx), "m_new")
            none = self.named(arith.CmpfOp(m_new, ninf, _OEQ))
            m_use = self.named(arith.SelectOp(none, zero, m_new), "m_use")
            alpha = self.named(xmath.ExpOp(self.named(arith.SubfOp(m_old, m_use))), f"alpha{h}")
            self.store(m_new, self.ml, [], h)

            def rowsum(n: SSAValue, h=h, m_use=m_use) -> SSAValue:
                ps = []
                for e in range(2):
                    x = self.load(self.sc, [n], d0 * 4 + 2 * h + e)
                    p = self.named(xmath.ExpOp(self.named(arith.SubfOp(x, m_use))))
                    self.store(p, self.sc, [n], d0 * 4 + 2 * h + e)
                    ps.append(p)
                return self.named(arith.AddfOp(ps[0], ps[1]))

            rs = self.reduce_for(self.N // 8, CombineKind.ADD, rowsum, name="n")
            l_old = self.load(self.ml, [], 2 + h, name="l")
            self.store(self.named(xmath.FmaOp(l_old, alpha, rs)), self.ml, [], 2 + h)
            alphas.append(alpha)
        return alphas

    def rescale(self, alphas: list[SSAValue]) -> None:
        d0 = AffineExpr.dimension(0)

        def body(j: SSAValue) -> None:
            for i in range(4):
                v = self.load(self.o, [j], d0 * 4 + i)
                self.store(self.named(arith.MulfOp(v, alphas[i // 2])), self.o, [j], d0 * 4 + i)

        self.for_(self.DVP // 8, body, unroll=True, name="j")

    def split_p(self) -> None:
        """sc = tf32(p) (P's hi part, in place), sc_lo = tf32(p - hi) (3xTF32)."""
        d0 = AffineExpr.dimension(0)

        def body(i: SSAValue) -> None:
            hi, lo = self.split(self.load(self.sc, [i], d0))
            self.store(hi, self.sc, [i], d0)
            if lo is not None and self.sc_lo is not None:
                self.store(lo, self.sc_lo, [i], d0)

        self.for_(self.N // 2, body, unroll=True, name="z")

    def pv_step(self) -> None:
        """o += P V for this key tile: per group of `pv_group` 8-column tiles of o, chunks of
        chain_v k-steps into a fresh fragment of that group (4 pv_group registers), added into o."""
        if self.simt:
            return self.simt_pv()
        d0, d1, d2 = dims(3)
        nch = (self.N // 8) // self.chain_v
        group = self.pv_group
        pv = self.pv
        assert pv is not None
        if self.sc_lo is not None:  # several column groups: split P once, hi in place
            self.split_p()

        def p_parts(k8: SSAValue, i: int) -> tuple[SSAValue, SSAValue | None]:
            """The TF32 parts of P's value i of k-step k8 (split here, or loaded once split)."""
            x = self.load(self.sc, [k8], d0 * 4 + i)
            if self.sc_lo is None:
                return self.split(x)
            return x, (self.load(self.sc_lo, [k8], d0 * 4 + i) if self.precision == mma.Precision.TF32X3 else None)

        def column_group(gr: SSAValue | None) -> None:
            first = [] if gr is None else [gr]  # the group's first 8-column tile: 8 group gr
            col0 = AffineExpr.constant(0) if gr is None else AffineExpr.dimension(0) * group

            def chain(ch: SSAValue | None) -> None:
                self.zero_regs(pv, 4 * group)

                def kstep(kk: SSAValue) -> None:
                    k8 = kk if ch is None else self.expr_value(d0 * self.chain_v + d1, [ch, kk], "k8")
                    # A = P: a0 (g, k=t) = key 2t, a1 (g+8, t), a2 (g, t+4) = key 2t+1, a3 (g+8, t+4)
                    a = [p_parts(k8, i) for i in (0, 2, 1, 3)]
                    at = [*first, k8, self.t, self.g]
                    dk, dt, dg = dims(len(at))[len(first):]
                    for start in range(0, group, GROUP):
                        bs = {}
                        if self.wide_pv:  # tile j's fragment column g is column 32 quad + 4g + j % 4
                            parts = [self.split_operand4(self.vs, self.vs_lo, at, dk * 8 + dt * 2 + e,
                                                         (col0 + start) * 8 + dg * 4)
                                     for e in range(2)]  # fmt: skip
                            bs = {j: [parts[0][j - start], parts[1][j - start]]
                                  for j in range(start, start + GROUP)}  # fmt: skip
                        for j in [] if self.wide_pv else range(start, min(start + GROUP, group)):
                            # b0: key 2t, b1: key 2t+1; column 8 (first tile + j) + g
                            bs[j] = [
                                self.split_operand(self.vs, self.vs_lo, at, dk * 8 + dt * 2 + e,
                                                   (col0 + j) * 8 + dg)
                                for e in range(2)
                            ]  # fmt: skip
                        self.mma_terms(a, bs, pv, lambda j, i: ([], 4 * j + i))

                self.for_(self.chain_v, kstep, unroll=True, name="kk")
                if gr is None:
                    return self.add_into(self.o, pv, self.DVP // 2)

                def add(i: SSAValue) -> None:
                    total = self.named(arith.AddfOp(self.load(self.o, [gr, i], d0 * 4 * group + d1),
                                                    self.load(pv, [i], d0)))  # fmt: skip
                    self.store(total, self.o, [gr, i], d0 * 4 * group + d1)

                self.for_(4 * group, add, unroll=True, name="z")

            if nch > 1:
                self.for_(nch, chain, unroll=True, name="ch")
            else:
                chain(None)

        if group == self.DVP // 8:
            column_group(None)
        else:
            self.for_(self.DVP // 8 // group, column_group, unroll=True, name="gr")

    def simt_pv(self) -> None:
        """o[row h][8j + 2t + e2] += sum over the tile's keys of p * v, each key's p fetched
        from the quad lane that holds it (lane t ^ d holds keys 2 (t ^ d) and 2 (t ^ d) + 1)."""
        d0, d1, d2 = dims(3)

        def step(kk: SSAValue) -> None:
            pds: dict[tuple, SSAValue] = {}
            keys: dict[tuple, SSAValue] = {}
            for d in range(4):
                td = self.t if d == 0 else self.named(arith.XOrIOp(self.t, self.const(d)))
                for e in range(2):
                    keys[(d, e)] = self.expr_value(d0 * 8 + d1 * 2 + e, [kk, td], "key")
                    for h in range(2):
                        p = self.load(self.sc, [kk], d0 * 4 + 2 * h + e)
                        pds[(d, e, h)] = p if d == 0 else self.named(K.ShuffleXorOp(p, d))

            def col(j: SSAValue) -> None:
                for e2 in range(2):
                    vals = {
                        (d, e): self.load(self.vs, [keys[(d, e)], j, self.t], d0,
                                          d1 * 8 + d2 * 2 + e2)
                        for d in range(4) for e in range(2)
                    }  # fmt: skip
                    for h in range(2):
                        acc = self.load(self.o, [j], d0 * 4 + 2 * h + e2)
                        for (d, e), v in vals.items():
                            prod = self.named(arith.MulfOp(pds[(d, e, h)], v))
                            acc = self.named(arith.AddfOp(acc, prod))
                        self.store(acc, self.o, [j], d0 * 4 + 2 * h + e2)

            self.for_(self.DVP // 8, col, unroll=True, name="j")

        self.for_(self.N // 8, step, name="kk")
