"""materialize-attention: lower each attention tile (`attn.flash`, tile-attention's) of @main to one
flash-attention `kernel.func` and its `kernel.launch`; the other kernels are left to
materialize-mma and materialize.

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
        sc = Q K^T                     mma.sync, 3xTF32: lo*hi, hi*lo, hi*hi per k-step of 8
        sc = score(sc, l, s)           the score region (scale, mask); keys >= S: -inf
        m' = max(m, rowmax sc) (quad shuffles); alpha = exp(m - m'); sc = exp(sc - m');
        l = l alpha + rowsum sc; o *= alpha
        wait; barrier; fill ks (keys (j+1)N..); commit
        o += P V                       P from sc (keys 2t, 2t + 1 of each 8 as the A fragment's
                                       k = t, t + 4), V from vs
    o / quad-sum(l) -> the output region (rows < L, columns < DV)

Tensor-core accumulation chains are kept short (the tensor cores round each MMA's sum toward
zero): `chain` k-steps of 8 accumulate in a fresh fragment that is then added into the fp32
registers (S), and each key tile's P @ V (in chunks of `chain` k-steps) goes into a fresh
fragment added into o after the rescale. A row whose scores are all -inf so far uses 0 as its
max (no NaN from -inf - -inf). `precision ieee` computes the same fragments with fp32 FMAs
(the P @ V rows shared within each quad by shuffles). Unsupported structure (a region op other
than loads, stores, index and scalar math; more shared memory than 227 KiB) raises a one-line
ValueError.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith, func
from xdsl.dialects import math as xmath
from xdsl.dialects.builtin import Float32Type, MemRefType, ModuleOp, NoneAttr
from xdsl.ir import Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr
from xdsl.passes import ModulePass

from dpl.dialects import attn, mma, tile
from dpl.dialects import kernel as K
from dpl.dialects.loop import CombineKind, LoadOp
from dpl.transforms.kernel.emit import Emitter, EmitError, amap, dims

AK = tile.AxisKind
PAD = 4
GROUP = 4
"""n-tiles whose MMAs are issued term by term together (independent accumulators in flight)."""
_OEQ = 1


class AttentionLoweringError(ValueError):
    """An attention tile materialize-attention cannot lower; the message is one line."""


def _largest_divisor(n: int, at_most: int) -> int:
    return max(d for d in range(1, min(n, at_most) + 1) if n % d == 0)


def _multiple_of(e: AffineExpr, n: int) -> bool:
    if isinstance(e, AffineConstantExpr):
        return e.value % n == 0
    if isinstance(e, AffineBinaryOpExpr):
        if e.kind == AffineBinaryOpKind.Add:
            return _multiple_of(e.lhs, n) and _multiple_of(e.rhs, n)
        if e.kind == AffineBinaryOpKind.Mul:
            return _multiple_of(e.lhs, n) or _multiple_of(e.rhs, n)
    return False


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
    amap = load.map.data
    if any(_uses(e, d) for e in amap.results[:-1]):
        return None
    rest = _without(amap.results[-1], d)
    if rest is None:
        return None
    shape = load.memref.type.get_shape()  # type: ignore[union-attr]
    flat: AffineExpr = rest
    stride = 1
    for e, size in zip(reversed(amap.results[:-1]), reversed(shape[1:])):
        stride *= size
        flat = flat + e * stride
    return load if _multiple_of(flat, 4) else None


class FlashLowering:
    """Builds the `kernel.func` of one attention `tile.kernel` (module doc)."""

    def __init__(self, kop: tile.KernelOp):
        self.kop = kop
        self.name = kop.sym_name.data
        self.tile = kop.tile
        ops = [o for o in self.tile.body.block.ops if isinstance(o, attn.FlashOp)]
        if len(ops) != 1:
            self.fail("needs one 'attn.flash' in its tile")
        op = self.op = ops[0]
        self.R, self.L, self.S = op.size("rows"), op.size("queries"), op.size("keys")
        self.N, self.D, self.DV = op.size("tile"), op.size("depth"), op.size("value_depth")
        self.W = self.R // 16
        self.NT = 32 * self.W
        self.DP, self.DVP = -(-self.D // 8) * 8, -(-self.DV // 8) * 8
        chain = op.chain.data
        self.chain_s = _largest_divisor(self.DP // 8, chain or self.DP // 8)
        self.chain_v = _largest_divisor(self.N // 8, chain or self.N // 8)
        self.precision = op.precision.data
        self.simt = self.precision == mma.Precision.IEEE
        self.old_args = [*kop.ins, *kop.outs]
        self.fblock = Block(arg_types=[a.type for a in self.old_args])
        self.em = Emitter(self.fblock)
        self.vm: dict[SSAValue, SSAValue] = {}
        for new, old in zip(self.fblock.args, self.old_args):
            new.name_hint = old.name_hint
            self.vm[old] = new
        self.any_async = False

    def fail(self, what: str):
        raise AttentionLoweringError(f"materialize-attention: @{self.name}: {what}")

    # -- the kernel -----------------------------------------------------------------------------

    def lower(self) -> K.KernelFuncOp:
        em = self.em
        try:
            for o in self.kop.body.block.ops:  # constants before the tile
                if o is not self.tile:
                    em.clone(o, self.vm)
            self.emit_axes()
            for o in self.tile.body.block.ops:  # the block's first row (block axes only)
                if o is self.op:
                    break
                em.clone(o, self.vm)
            self.emit_buffers()
            self.emit_body()
        except EmitError as e:
            self.fail(str(e))
        smem = 4 * ((self.R + self.N) * (self.DP + PAD) + self.N * (self.DVP + PAD))
        if smem > K.MAX_SMEM:
            self.fail(f"needs {smem} bytes of shared memory, more than {K.MAX_SMEM}")
        kfunc = K.KernelFuncOp(self.name, [a.type for a in self.old_args], self.grid, [self.NT, 1, 1],
                               smem, Region(self.fblock))  # fmt: skip
        _dce(kfunc)
        return kfunc

    def emit_axes(self) -> None:
        em = self.em
        blocks = [(v, e) for v, e, k in self.tile.axes if k == AK.BLOCK]
        threads = [v for v, _, k in self.tile.axes if k == AK.THREAD]
        real = [(v, e) for v, e in blocks if e > 1]
        for v, e in blocks:
            if e == 1:
                self.vm[v] = em.const(0)
        first = self.op.first_row
        qb = first if isinstance(first, BlockArgument) else None
        if qb is None and isinstance(first.owner, Operation):
            qb = next((o for o in first.owner.operands if isinstance(o, BlockArgument)), None)
        self.grid = [1, 1, 1]
        for dim, (v, e) in zip((K.Dim.X, K.Dim.Y), reversed(real[-2:])):
            raw = em.value(K.BlockIdOp(dim), f"b{dim.value}")
            self.grid["xyz".index(dim.value)] = e
            if v is qb and self.op.is_causal:  # the longest causal rows first
                raw = em.arith(arith.SubiOp, em.const(e - 1), raw)
            raw.name_hint = v.name_hint
            self.vm[v] = raw
        rest = real[:-2]
        if rest:
            self.grid[2] = math.prod(e for _, e in rest)
            if self.grid[1] > 65535 or self.grid[2] > 65535:
                self.fail("has a block axis too large for grid y or z")
            bz = em.value(K.BlockIdOp(K.Dim.Z), "bz")
            below = self.grid[2]
            d0 = AffineExpr.dimension(0)
            for v, e in rest:
                below //= e
                self.vm[v] = em.index((d0 // below) % e if below > 1 else d0 % e, [bz], v.name_hint or "")
        tid = em.value(K.ThreadIdOp(K.Dim.X), "tid")
        d0 = AffineExpr.dimension(0)
        for v, e in zip(threads, (d0 // 32, d0 // 4 % 8, d0 % 4)):
            self.vm[v] = em.index(e, [tid], v.name_hint or "")
        self.tid = tid
        self.w, self.g, self.t = (self.vm[v] for v in threads)

    def emit_buffers(self) -> None:
        em, f32 = self.em, Float32Type()
        rows_q, rows_k = self.R * (self.DP + PAD), self.N * (self.DP + PAD)

        def smem(shape, offset, name):
            t = MemRefType(f32, shape, NoneAttr(), K.SMEM)
            return em.value(K.SmemOp(t, offset), name)

        self.qs = smem([self.R, self.DP + PAD], 0, "qs")
        self.ks = smem([self.N, self.DP + PAD], 4 * rows_q, "ks")
        self.vs = smem([self.N, self.DVP + PAD], 4 * (rows_q + rows_k), "vs")

        def regs(n, name):
            return em.value(K.AllocaOp(MemRefType(f32, [n])), name)

        self.o = regs(self.DVP // 2, "o")
        self.sc = regs(self.N // 2, "sc")
        self.ml = regs(4, "ml")
        self.tmp = regs(self.N // 2, "sc_chain") if not self.simt and self.chain_s < self.DP // 8 else None
        self.pv = regs(self.DVP // 2, "pv") if not self.simt else None

    # -- fills ----------------------------------------------------------------------------------

    def fill(self, dst: SSAValue, name: str, base: SSAValue, rows: int, cols: int, padded: int, limit: int) -> None:
        """dst[r][c] = region(base + r, c) for r < rows, c < padded; 0 past `cols` or `limit`."""
        em = self.em
        region = self.op.region(name)
        load = async_source(region) if cols % 4 == 0 else None
        width = 4 if load is not None else 1
        per_row = padded // width
        total = rows * per_row
        d0, d1, d2 = dims(3)
        row_check = limit % rows != 0 or rows > limit
        zero = em.f32(0.0)
        if load is not None:
            self.any_async = True

        def body(i: SSAValue) -> None:
            q = em.index(d0 + d1 * self.NT, [self.tid, i], "q")
            r = em.index(d0 // per_row, [q], "r")
            c = em.index((d0 % per_row) * width, [q], "c")
            row = em.index(d0 + d1, [base, r], "row")
            conds = []
            if row_check:
                conds.append(em.value(arith.CmpiOp(row, em.const(limit), "ult")))
            if cols < padded:
                conds.append(em.value(arith.CmpiOp(c, em.const(cols), "ult")))

            def copy() -> None:
                if load is not None:
                    m = dict(self.vm)
                    m[region.block.args[0]], m[region.block.args[1]] = row, c
                    em.emit(K.CpAsyncOp(dst, [r, c], _map2(), m[load.memref], [m.get(v, v) for v in load.indices],
                                        load.map.data, 16))  # fmt: skip
                else:
                    (v,) = em.clone_region(region, [row, c], self.vm)
                    em.store(v, dst, [r, c], d0, d1)

            def zeros() -> None:
                if width == 4:
                    em.emit(K.StoreOp(em.value(K.PackOp([zero] * 4)), dst, [r, c], _map2()))
                else:
                    em.store(zero, dst, [r, c], d0, d1)

            if conds:
                cond = conds[0] if len(conds) == 1 else em.value(arith.AndIOp(conds[0], conds[1]))
                em.if_(cond, copy, zeros)
            else:
                copy()

        def guarded(i: SSAValue) -> None:
            if total % self.NT:
                q = em.index(d0 + d1 * self.NT, [self.tid, i], "q")
                em.if_(em.value(arith.CmpiOp(q, em.const(total), "ult")), lambda: body(i))
            else:
                body(i)

        em.for_(-(-total // self.NT), guarded, unroll=True, name=f"{name[0]}i")

    # -- the main loop --------------------------------------------------------------------------

    def emit_body(self) -> None:
        em = self.em
        d0, d1, d2, d3 = dims(4)
        ninf = em.f32(float("-inf"))
        self.zero_regs(self.o, self.DVP // 2)
        for h in range(2):
            em.store(ninf, self.ml, [], h)
            em.store(em.f32(0.0), self.ml, [], 2 + h)
        l0 = self.vm[self.op.first_row]
        self.l0 = l0
        # each thread's two rows: l0 + 16 w + g + 8 h
        self.rows = [em.index(d0 + d1 * 16 + d2 + 8 * h, [l0, self.w, self.g], f"row{h}") for h in range(2)]
        tiles = -(-self.S // self.N)
        if self.op.is_causal:
            last = em.index((d0 + (self.R - 1)) // self.N + 1, [l0], "last")
            nt: SSAValue | int = em.value(arith.MinSIOp(last, em.const(tiles)), "tiles")
        else:
            nt = tiles
        self.fill(self.qs, "query", l0, self.R, self.D, self.DP, self.L)
        self.fill(self.ks, "key", em.const(0), self.N, self.D, self.DP, self.S)
        self.commit()

        def step(j: SSAValue) -> None:
            s0 = em.index(d0 * self.N, [j], "s0")
            self.wait()
            em.emit(K.BarrierOp())
            self.fill(self.vs, "value", s0, self.N, self.DV, self.DVP, self.S)
            self.commit()
            self.scores()
            self.score_epilogue(s0)
            alphas = self.online_softmax()
            self.rescale(alphas)
            self.wait()
            em.emit(K.BarrierOp())
            nxt = em.index(d0 + 1, [j], "next")
            s1 = em.index(d0 * self.N, [nxt], "s1")

            def more() -> None:
                self.fill(self.ks, "key", s1, self.N, self.D, self.DP, self.S)
                self.commit()

            if isinstance(nt, int) and nt == 1:
                pass
            else:
                bound = nt if not isinstance(nt, int) else em.const(nt)
                em.if_(em.value(arith.CmpiOp(nxt, bound, "ult")), more)
            self.pv_step()

        em.for_(nt, step, name="j")
        self.epilogue()

    def commit(self) -> None:
        if self.any_async:
            self.em.emit(K.CpAsyncCommitOp())

    def wait(self) -> None:
        if self.any_async:
            self.em.emit(K.CpAsyncWaitOp(0))

    def zero_regs(self, buf: SSAValue, n: int) -> None:
        zero = self.em.f32(0.0)
        self.em.for_(n, lambda i: self.em.store(zero, buf, [i], AffineExpr.dimension(0)), unroll=True, name="z")

    def split(self, v: SSAValue) -> tuple[SSAValue, SSAValue | None]:
        em = self.em
        hi = em.value(mma.Tf32Op(v))
        if self.precision == mma.Precision.TF32:
            return hi, None
        rem = em.arith(arith.SubfOp, v, hi)
        return hi, em.value(mma.Tf32Op(rem))

    def mma_terms(self, a: list, bs: dict[int, list], acc: SSAValue, slot) -> None:
        """For each n of `bs`: acc[slot(n, 0..3)] += A * B_n (3xTF32: lo*hi, hi*lo, hi*hi)."""
        em = self.em
        ahi = [x[0] for x in a]
        terms = [("hi", "hi")]
        if self.precision == mma.Precision.TF32X3:
            terms = [("lo", "hi"), ("hi", "lo"), ("hi", "hi")]
        for ta, tb in terms:
            av = ahi if ta == "hi" else [x[1] for x in a]
            for n, b in bs.items():
                bv = [x[0] for x in b] if tb == "hi" else [x[1] for x in b]
                idx = [slot(n, i) for i in range(4)]
                cs = [em.load(acc, *ix) for ix in idx]
                ds = em.emit(mma.MmaSyncOp(av, bv, cs)).results
                for dv, ix in zip(ds, idx):
                    em.store(dv, acc, *ix)

    def scores(self) -> None:
        """sc = Q K^T for this key tile (chains of chain_s k-steps)."""
        em = self.em
        d0, d1, d2, d3 = dims(4)
        self.zero_regs(self.sc, self.N // 2)
        if self.simt:
            return self.simt_scores()
        ks_n = self.DP // 8
        nch = ks_n // self.chain_s
        dst = self.tmp if nch > 1 else self.sc

        def chain(ch: SSAValue | None) -> None:
            if nch > 1:
                self.zero_regs(dst, self.N // 2)

            def kstep(kk: SSAValue) -> None:
                k8 = kk if ch is None else em.index(d0 * self.chain_s + d1, [ch, kk], "k8")
                a = []
                for i in range(4):  # a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)
                    v = em.load(self.qs, [self.w, self.g, self.t, k8], d0 * 16 + d1 + 8 * (i % 2),
                                d3 * 8 + d2 + 4 * (i // 2))  # fmt: skip
                    a.append(self.split(v))
                for start in range(0, self.N // 8, GROUP):
                    bs = {}
                    for n in range(start, min(start + GROUP, self.N // 8)):  # b0 (k=t, n=g), b1 (k=t+4)
                        bs[n] = [self.split(em.load(self.ks, [self.g, self.t, k8], d0 + 8 * n, d2 * 8 + d1 + 4 * e))
                                 for e in range(2)]  # fmt: skip
                    self.mma_terms(a, bs, dst, lambda n, i: ([], 4 * n + i))

            em.for_(self.chain_s, kstep, unroll=True, name="kk")
            if nch > 1:
                def add(i: SSAValue) -> None:
                    s = em.arith(arith.AddfOp, em.load(self.sc, [i], d0), em.load(dst, [i], d0))
                    em.store(s, self.sc, [i], d0)

                em.for_(self.N // 2, add, unroll=True, name="z")

        if nch > 1:
            em.for_(nch, chain, unroll=True, name="ch")
        else:
            chain(None)

    def simt_scores(self) -> None:
        em = self.em
        d0, d1, d2, d3 = dims(4)

        def step(c: SSAValue) -> None:
            q = [em.load(self.qs, [self.w, self.g, c], d0 * 16 + d1 + 8 * h, d2) for h in range(2)]
            for n in range(self.N // 8):
                k = [em.load(self.ks, [self.t, c], d0 * 2 + 8 * n + e, d1) for e in range(2)]
                for h in range(2):
                    for e in range(2):
                        i = 4 * n + 2 * h + e
                        acc = em.load(self.sc, [], i)
                        em.store(em.arith(arith.AddfOp, acc, em.arith(arith.MulfOp, q[h], k[e])), self.sc, [], i)

        em.for_(self.D, step, name="c")

    def score_epilogue(self, s0: SSAValue) -> None:
        em = self.em
        d0, d1, d2 = dims(3)
        ninf = em.f32(float("-inf"))
        rows = self.rows
        if self.L % self.R:
            last = em.const(self.L - 1)
            rows = [em.value(arith.MinSIOp(r, last)) for r in rows]

        def body(n: SSAValue) -> None:
            for i in range(4):
                x = em.load(self.sc, [n], d0 * 4 + i)
                s = em.index(d0 + d1 * 8 + d2 * 2 + i % 2, [s0, n, self.t], "key")
                s_eval = em.value(arith.MinSIOp(s, em.const(self.S - 1))) if self.S % self.N else s
                (y,) = em.clone_region(self.op.score, [x, rows[i // 2], s_eval], self.vm)
                if self.S % self.N:
                    y = em.value(arith.SelectOp(em.value(arith.CmpiOp(s, em.const(self.S), "ult")), y, ninf))
                em.store(y, self.sc, [n], d0 * 4 + i)

        em.for_(self.N // 8, body, unroll=True, name="n")

    def online_softmax(self) -> list[SSAValue]:
        """Per row h: the new running max m', alpha = exp(m - m'), sc = exp(sc - m'),
        l = l alpha + rowsum(sc); returns the alphas."""
        em = self.em
        d0 = AffineExpr.dimension(0)
        ninf, zero = em.f32(float("-inf")), em.f32(0.0)
        alphas = []
        for h in range(2):
            def rowmax(n: SSAValue, h=h) -> SSAValue:
                a = em.load(self.sc, [n], d0 * 4 + 2 * h)
                b = em.load(self.sc, [n], d0 * 4 + 2 * h + 1)
                return em.arith(arith.MaximumfOp, a, b)

            mx = em.reduce_for(self.N // 8, CombineKind.MAX, rowmax, name="n")
            for off in (1, 2):
                mx = em.arith(arith.MaximumfOp, mx, em.value(K.ShuffleXorOp(mx, off)))
            m_old = em.load(self.ml, [], h, name="m")
            m_new = em.arith(arith.MaximumfOp, m_old, mx, name="m_new")
            none = em.value(arith.CmpfOp(m_new, ninf, _OEQ))
            m_use = em.value(arith.SelectOp(none, zero, m_new), "m_use")
            alpha = em.value(xmath.ExpOp(em.arith(arith.SubfOp, m_old, m_use)), f"alpha{h}")
            em.store(m_new, self.ml, [], h)

            def rowsum(n: SSAValue, h=h, m_use=m_use) -> SSAValue:
                ps = []
                for e in range(2):
                    x = em.load(self.sc, [n], d0 * 4 + 2 * h + e)
                    p = em.value(xmath.ExpOp(em.arith(arith.SubfOp, x, m_use)))
                    em.store(p, self.sc, [n], d0 * 4 + 2 * h + e)
                    ps.append(p)
                return em.arith(arith.AddfOp, ps[0], ps[1])

            rs = em.reduce_for(self.N // 8, CombineKind.ADD, rowsum, name="n")
            l_old = em.load(self.ml, [], 2 + h, name="l")
            em.store(em.arith(arith.AddfOp, em.arith(arith.MulfOp, l_old, alpha), rs), self.ml, [], 2 + h)
            alphas.append(alpha)
        return alphas

    def rescale(self, alphas: list[SSAValue]) -> None:
        em = self.em
        d0 = AffineExpr.dimension(0)

        def body(j: SSAValue) -> None:
            for i in range(4):
                v = em.load(self.o, [j], d0 * 4 + i)
                em.store(em.arith(arith.MulfOp, v, alphas[i // 2]), self.o, [j], d0 * 4 + i)

        em.for_(self.DVP // 8, body, unroll=True, name="j")

    def pv_step(self) -> None:
        """o += P V for this key tile (chunks of chain_v k-steps into a fresh fragment)."""
        if self.simt:
            return self.simt_pv()
        em = self.em
        d0, d1, d2 = dims(3)
        nch = (self.N // 8) // self.chain_v

        def chain(ch: SSAValue | None) -> None:
            self.zero_regs(self.pv, self.DVP // 2)

            def kstep(kk: SSAValue) -> None:
                k8 = kk if ch is None else em.index(d0 * self.chain_v + d1, [ch, kk], "k8")
                # A = P: a0 (g, k=t) = key 2t, a1 (g+8, t), a2 (g, t+4) = key 2t+1, a3 (g+8, t+4)
                a = [self.split(em.load(self.sc, [k8], d0 * 4 + i)) for i in (0, 2, 1, 3)]
                for start in range(0, self.DVP // 8, GROUP):
                    bs = {}
                    for j in range(start, min(start + GROUP, self.DVP // 8)):  # b0: key 2t, b1: key 2t+1
                        bs[j] = [self.split(em.load(self.vs, [k8, self.t, self.g], d0 * 8 + d1 * 2 + e, d2 + 8 * j))
                                 for e in range(2)]  # fmt: skip
                    self.mma_terms(a, bs, self.pv, lambda j, i: ([], 4 * j + i))

            em.for_(self.chain_v, kstep, unroll=True, name="kk")

            def add(i: SSAValue) -> None:
                s = em.arith(arith.AddfOp, em.load(self.o, [i], d0), em.load(self.pv, [i], d0))
                em.store(s, self.o, [i], d0)

            em.for_(self.DVP // 2, add, unroll=True, name="z")

        if nch > 1:
            em.for_(nch, chain, unroll=True, name="ch")
        else:
            chain(None)

    def simt_pv(self) -> None:
        """o[row h][8j + 2t + e2] += sum over the tile's keys of p * v, each key's p fetched
        from the quad lane that holds it (lane t ^ d holds keys 2 (t ^ d) and 2 (t ^ d) + 1)."""
        em = self.em
        d0, d1, d2 = dims(3)

        def step(kk: SSAValue) -> None:
            pds: dict[tuple, SSAValue] = {}
            keys: dict[tuple, SSAValue] = {}
            for d in range(4):
                td = self.t if d == 0 else em.value(arith.XOrIOp(self.t, em.const(d)))
                for e in range(2):
                    keys[(d, e)] = em.index(d0 * 8 + d1 * 2 + e, [kk, td], "key")
                    for h in range(2):
                        p = em.load(self.sc, [kk], d0 * 4 + 2 * h + e)
                        pds[(d, e, h)] = p if d == 0 else em.value(K.ShuffleXorOp(p, d))

            def col(j: SSAValue) -> None:
                for e2 in range(2):
                    vals = {(d, e): em.load(self.vs, [keys[(d, e)], j, self.t], d0, d1 * 8 + d2 * 2 + e2)
                            for d in range(4) for e in range(2)}  # fmt: skip
                    for h in range(2):
                        acc = em.load(self.o, [j], d0 * 4 + 2 * h + e2)
                        for (d, e), v in vals.items():
                            acc = em.arith(arith.AddfOp, acc, em.arith(arith.MulfOp, pds[(d, e, h)], v))
                        em.store(acc, self.o, [j], d0 * 4 + 2 * h + e2)

            em.for_(self.DVP // 8, col, unroll=True, name="j")

        em.for_(self.N // 8, step, name="kk")

    def epilogue(self) -> None:
        em = self.em
        d0, d1, d2 = dims(3)
        sums = []
        for h in range(2):
            s = em.load(self.ml, [], 2 + h, name="l")
            for off in (1, 2):
                s = em.arith(arith.AddfOp, s, em.value(K.ShuffleXorOp(s, off)))
            sums.append(s)
        row_ok = [em.value(arith.CmpiOp(r, em.const(self.L), "ult")) for r in self.rows] if self.L % self.R else None

        def body(j: SSAValue) -> None:
            for i in range(4):
                h = i // 2
                c = em.index(d0 * 8 + d1 * 2 + i % 2, [j, self.t], "col")
                v = em.arith(arith.DivfOp, em.load(self.o, [j], d0 * 4 + i), sums[h])
                conds = [row_ok[h]] if row_ok else []
                if self.DV % 8:
                    conds.append(em.value(arith.CmpiOp(c, em.const(self.DV), "ult")))

                def out(v=v, c=c, h=h) -> None:
                    em.clone_region(self.op.output, [v, self.rows[h], c], self.vm)

                if conds:
                    cond = conds[0] if len(conds) == 1 else em.value(arith.AndIOp(conds[0], conds[1]))
                    em.if_(cond, out)
                else:
                    out()

        em.for_(self.DVP // 8, body, unroll=True, name="j")


def _map2():
    d0, d1 = dims(2)
    return amap(2, d0, d1)


def _dce(kfunc: K.KernelFuncOp) -> None:
    """Erase scalar ops whose results are unused."""
    changed = True
    while changed:
        changed = False
        for op in list(kfunc.walk()):
            if op.dialect_name() in ("arith", "math") and op.results and all(not r.uses for r in op.results):
                op.detach()
                op.erase()
                changed = True


def is_attention_kernel(kop: tile.KernelOp) -> bool:
    return any(isinstance(o, attn.FlashOp) for o in kop.walk())


@dataclass(frozen=True)
class MaterializeAttention(ModulePass):
    """Lower attention tile.kernels (attn.flash) of @main to flash-attention kernel.funcs."""

    name = "materialize-attention"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in op.body.block.ops if isinstance(f, func.FuncOp)]:
            for kop in [k for k in fn.body.walk() if isinstance(k, tile.KernelOp) and is_attention_kernel(k)]:
                low = FlashLowering(kop)
                kfunc = low.lower()
                op.body.block.insert_op_before(kfunc, fn)
                kop.parent_block().insert_op_before(K.LaunchOp(low.name, low.old_args), kop)  # type: ignore[union-attr]
                kop.detach()
                kop.erase()
