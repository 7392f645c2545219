"""Operand staging and the K loop of materialize-mma's lowering (materialize_mma.py), for both
layouts: fill (a stage region evaluated into registers a K step ahead, float4 loads where
contiguous along K, a warp along one row where K-contiguous rows are not float4-aligned; a
masked float4, which is wholly inside or outside its buffer, is one masked load: masking.py),
split-store (tf32 hi / lo halves, the 3xTF32
split, stored as float4s into the swizzled shared-memory stage), the wgmma main loop
(asynchronous chains, promoted into acc) and the mma.sync main loop (fragments loaded and split
in registers, m16n8k8 chains).

It builds on mma_builder.py; the registers and buffers it uses (tid, smem, acc, chain, chunks)
are made by materialize_mma.py's emit_axes and emit_buffers.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap

from dpl.dialects import kernel as K
from dpl.dialects import loop, mma, tile
from dpl.transforms.kernel import masking
from dpl.transforms.kernel.lowering import multiple_of
from dpl.transforms.kernel.mma_builder import K_STEP, MmaKernelBuilder


def _split_add(e: AffineExpr, d: int) -> AffineExpr | None:
    """`e` = rest + dim d (unit coefficient, d nowhere else): `rest`; else None."""
    if isinstance(e, AffineDimExpr) and e.position == d:
        return AffineConstantExpr(0)
    if isinstance(e, AffineBinaryOpExpr) and e.kind == AffineBinaryOpKind.Add:
        for a, b in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if isinstance(b, AffineDimExpr) and b.position == d and d not in a.used_dims():
                return a
            if d not in b.used_dims():
                inner = _split_add(a, d)
                if inner is not None:
                    return inner + b
    return None


class MmaMainLoop(MmaKernelBuilder):
    """Operand staging and the K loop (wgmma or mma.sync) of one tensor-core kernel."""

    # made by MmaLowering.emit_axes / emit_buffers (materialize_mma.py)
    tid: SSAValue
    smem: dict[tuple[str, str], SSAValue]
    acc: SSAValue
    frag: SSAValue
    chunks: dict[str, int]

    # -- staging --------------------------------------------------------------------------------

    def stage_mode(self, stage: mma.StageOp) -> str:
        """How fill maps `stage`'s 32 K x rows elements onto the threads: "float4" where a load
        of the region runs along K over rows of a multiple of 4 floats (chunk q = tid + i nt:
        row q / 8, K offset 4 (q mod 8), one float4 load); "k-run" where one runs along K but its
        rows are not float4-aligned (element e = tid + (4 i + l) nt: row e / 32, K offset
        e mod 32, so a warp reads 32 consecutive floats of one row, not 32 rows); else "rows"
        (chunk q: row q mod rows, K offset 4 (q / rows): a warp reads consecutive rows)."""
        c = stage.body.block.args[1]
        loads = [op for op in stage.body.block.ops if isinstance(op, loop.LoadOp) and c in op.indices]
        if any(self._vector_rest(op, c) is not None for op in loads):
            return "float4"
        exact = stage.rows * 8 % self.nt == 0 and self.nt % 32 == 0  # no thread past the stage
        if exact and any(self._k_rest(op, c) is not None for op in loads):
            return "k-run"
        return "rows"

    def _k_rest(self, op: loop.LoadOp, c: SSAValue) -> AffineExpr | None:
        """For a load whose innermost index is rest + c (c nowhere else): rest; else None."""
        amap = op.map.data
        positions = [i for i, v in enumerate(op.indices) if v is c]
        if len(positions) != 1 or any(positions[0] in e.used_dims() for e in amap.results[:-1]):
            return None
        return _split_add(amap.results[-1], positions[0])

    def _vector_rest(self, op: loop.LoadOp, c: SSAValue) -> AffineExpr | None:
        """For a load of f32 (what a float4 moves) whose innermost index is rest + c (c nowhere
        else) with rest a multiple of 4 and rows of a multiple of 4: rest; else None (a mask's
        bools are read one by one)."""
        t = op.memref.type
        if t.get_shape()[-1] % 4 or not isinstance(t.element_type, Float32Type):  # type: ignore[union-attr]
            return None
        rest = self._k_rest(op, c)
        return rest if rest is not None and multiple_of(rest, 4) else None

    def _lane_rows(self, i: SSAValue) -> list[SSAValue]:
        """k-run: the row of lane l of register chunk i, (tid + (4 i + l) nt) / 32."""
        d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
        return [self.index(d0 // 32 + (d1 * 4 + lane) * (self.nt // 32), [self.tid, i], "r") for lane in range(4)]

    def fill(self, side: str, ko: SSAValue) -> None:
        """Evaluate stage `side`'s region for K step `ko` into its registers."""
        stage = self.a_stage if side == "a" else self.b_stage
        rows, n = stage.rows, self.chunks[side]
        regs = self.smem[(side, "regs")]
        mode = self.stage_mode(stage)
        d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)

        def body(i: SSAValue) -> None:
            if mode == "k-run":
                c = self.index(d0 % 32, [self.tid], "c")
                rs, cs = self._lane_rows(i), [c] * 4
            else:
                q = self.index(d0 + d1 * self.nt, [self.tid, i], "q")
                r = self.index(d0 // 8 if mode == "float4" else d0 % rows, [q], "r")
                c4 = self.index(d0 % 8 if mode == "float4" else d0 // rows, [q], "c4")
                c = self.index(d0 * 4, [c4], "c")
                rs, cs = [r] * 4, [c] + [self.index(d0 + lane, [c]) for lane in range(1, 4)]

            def chunk() -> None:
                for lane, v in enumerate(self.region_lanes(stage, rs, cs, ko)):
                    self.emit(K.StoreOp(v, regs, [i], AffineMap(1, 0, (d0 * 4 + lane,))))

            if rows * 8 % self.nt:
                q = self.index(d0 + d1 * self.nt, [self.tid, i], "q")
                self.if_(self.emit(arith.CmpiOp(q, self.const(rows * 8), "ult")).results[0], chunk)
            else:
                chunk()

        self.for_(n, body, unroll=True, name=f"{side}_i")

    def region_lanes(self, stage: mma.StageOp, rs: list[SSAValue], cs: list[SSAValue], ko: SSAValue) -> list[SSAValue]:
        """The region's value at (rs[l], cs[l]) for lanes l < 4: values that depend on neither
        a lane's row nor its K offset where these differ once, loads contiguous along K as one
        float4 (cs consecutive, rs one row), the rest per lane."""
        rv, cv = stage.body.block.args
        varying = {v for v, per in ((rv, rs), (cv, cs)) if len(set(per)) > 1}
        lanes = [{rv: r, cv: c, self.kloop.body.block.args[0]: ko} for r, c in zip(rs, cs)]
        memo: dict = {}

        def varies(v: SSAValue) -> bool:
            if v in varying:
                return True
            if v in memo:
                return memo[v]
            memo[v] = False
            owner = v.owner
            memo[v] = isinstance(owner, Operation) and any(varies(o) for o in owner.operands)
            return memo[v]

        for op in stage.body.block.ops:
            if isinstance(op, mma.StageYieldOp):
                continue
            if not any(varies(r_) for r_ in op.results):
                shared = dict(lanes[0])
                self.clone(op, shared)
                for m in lanes:
                    for old in op.results:
                        m[old] = shared[old]
                continue
            if isinstance(op, loop.LoadOp) and self._vector_rest(op, cv) is not None and rv not in varying:
                memref, amap = self.vm[op.memref], op.map.data
                idx = [lanes[0][v] if v in lanes[0] else self.vm[v] for v in op.indices]
                if tile.is_masked(op):  # the 4 lanes are all inside or all outside
                    vec = masking.masked_load(self, memref, amap, idx, tile.masked_dims(op), width=4)  # type: ignore[arg-type]
                else:
                    vec = self.emit(K.LoadOp(memref, idx, amap, vector=4)).results[0]
                vec.name_hint = (op.result.name_hint or "v") + "4"
                for lane, m in enumerate(lanes):
                    ext = self.emit(K.ExtractOp(vec, lane)).results[0]
                    ext.name_hint = op.result.name_hint
                    m[op.result] = ext
                continue
            for m in lanes:
                self.clone(op, m)
        return [m[stage.value] if stage.value in m else self.vm[stage.value] for m in lanes]

    def split_store(self, side: str, slot: SSAValue) -> None:
        """Registers of `side` -> tf32 hi (and lo) in stage `slot`: float4s, or (k-run) each
        lane to its own row."""
        stage = self.a_stage if side == "a" else self.b_stage
        rows, n = stage.rows, self.chunks[side]
        regs = self.smem[(side, "regs")]
        mode = self.stage_mode(stage)
        d0, d1, d2 = (AffineExpr.dimension(i) for i in range(3))

        def body(i: SSAValue) -> None:
            def chunk() -> None:
                vals = [self.emit(K.LoadOp(regs, [i], AffineMap(1, 0, (d0 * 4 + lane,)))).results[0]
                        for lane in range(4)]  # fmt: skip
                his, los = [], []
                for v in vals:
                    if self.sync:  # mma.sync splits after loading its fragments
                        his.append(v)
                        continue
                    hi = self.emit(mma.Tf32Op(v)).results[0]
                    his.append(hi)
                    if self.halves == 2:
                        rem = self.emit(arith.SubfOp(v, hi)).results[0]
                        los.append(self.emit(mma.Tf32Op(rem)).results[0])
                for half, vs in (("hi", his), ("lo", los)):
                    if not vs:
                        continue
                    buf = self.smem[(side, half)]
                    if mode == "k-run":  # smem[slot, (tid + (4 i + l) nt) / 32, tid mod 32]
                        for lane, v in enumerate(vs):
                            r_expr = d1 // 32 + (d2 * 4 + lane) * (self.nt // 32)
                            self.emit(K.StoreOp(v, buf, [slot, self.tid, i], AffineMap(3, 0, (d0, r_expr, d1 % 32))))
                        continue
                    # smem[slot, r, 4 c4] with q = tid + i * nt
                    r_expr = (d1 + d2 * self.nt) // 8 if mode == "float4" else (d1 + d2 * self.nt) % rows
                    c_expr = ((d1 + d2 * self.nt) % 8) * 4 if mode == "float4" else ((d1 + d2 * self.nt) // rows) * 4
                    pack = self.emit(K.PackOp(vs)).results[0]
                    pack.name_hint = f"{side}_{half}4"
                    self.emit(K.StoreOp(pack, buf, [slot, self.tid, i], AffineMap(3, 0, (d0, r_expr, c_expr))))

            if rows * 8 % self.nt:
                q = self.index(d0 + d1 * self.nt, [self.tid, i], "q")
                self.if_(self.emit(arith.CmpiOp(q, self.const(rows * 8), "ult")).results[0], chunk)
            else:
                chunk()

        self.for_(n, body, unroll=True, name=f"{side}_j")

    # -- the main loop ---------------------------------------------------------------------------

    def fill_both(self, ko: SSAValue) -> None:
        self.fill("a", ko)
        self.fill("b", ko)

    def store_both(self, slot: SSAValue) -> None:
        self.split_store("a", slot)
        self.split_store("b", slot)

    def emit_mainloop(self) -> None:
        if self.sync:
            return self.emit_sync_mainloop()
        n = self.ko_n
        self.stage_prologue(mma.FenceProxyAsyncOp)

        def body(ko: SSAValue) -> None:
            for c in range(K_STEP // 8 // self.chain):
                self.wgmma_chain(ko, range(c * self.chain, (c + 1) * self.chain))
                if c == 0:  # the next stage's stores overlap the first chain
                    self.next_stage(ko, mma.FenceProxyAsyncOp)
                self.emit(mma.WgmmaWaitOp(0))
                self.promote(self.frag, self.bn // 2)
            self.emit(K.BarrierOp())  # stage ko mod 2 is free, the next one published

        self.for_(n, body, name="ko")

    def wgmma_chain(self, ko: SSAValue, steps: range) -> None:
        """One accumulation chain on the fragment: the small terms of K steps `steps` of stage
        ko mod 2 (lo*hi, hi*lo), then their hi*hi, the first MMA overwriting."""
        d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)
        wg = self.vm[self.threads[0][0]]
        halves = ("hi", "lo")
        self.emit(mma.WgmmaFenceOp())
        first = True
        for terms in (self.small, self.large):
            for kk in steps:
                col = AffineConstantExpr(kk * 8)
                a_map = AffineMap(2, 0, (d0 % 2, d1 * 64, col))  # stage ko mod 2, rows 64 wg
                b_map = AffineMap(1, 0, (d0 % 2, AffineConstantExpr(0), col))
                for ah, bh in terms:
                    self.emit(mma.WgmmaOp(self.bn, self.frag, self.smem[("a", halves[ah])], [ko, wg], a_map,
                                          self.smem[("b", halves[bh])], [ko], b_map, overwrite=first))  # fmt: skip
                    first = False
        self.emit(mma.WgmmaCommitOp())

    def promote(self, frag: SSAValue, n: int) -> None:
        """acc[j] += frag[j] for j < n: the chain's sum into the fp32 accumulators (rounding to
        nearest, where the tensor cores truncate)."""

        def add(j: SSAValue) -> None:
            ident = AffineMap.identity(1)
            total = self.emit(arith.AddfOp(self.emit(K.LoadOp(self.acc, [j], ident)).results[0],
                                           self.emit(K.LoadOp(frag, [j], ident)).results[0]))  # fmt: skip
            self.emit(K.StoreOp(total.results[0], self.acc, [j], ident))

        self.for_(n, add, unroll=True, name="j")

    def emit_sync_mainloop(self) -> None:
        """mma.sync: per K step each warp loads its A and B fragments from the stage, splits them
        in registers and runs its MI x NI m16n8k8 MMAs; one barrier per K step publishes the next
        stage (nothing asynchronous to wait for)."""
        n = self.ko_n
        self.stage_prologue(None)

        def body(ko: SSAValue) -> None:
            for c in range(K_STEP // 8 // self.chain):
                self.sync_chain(ko, range(c * self.chain, (c + 1) * self.chain))
            self.next_stage(ko, K.BarrierOp)

        self.for_(n, body, name="ko")

    def stage_prologue(self, fence: type[Operation] | None) -> None:
        """Stage 0 filled and stored (then `fence`, the async proxy's, and a barrier), and K
        step 1's loads started into registers."""
        self.fill_both(self.const(0))
        self.store_both(self.const(0))
        if fence is not None:
            self.emit(fence())
        self.emit(K.BarrierOp())
        if self.ko_n > 1:
            self.fill_both(self.const(1))

    def next_stage(self, ko: SSAValue, publish: type[Operation]) -> None:
        """If K step ko + 1 exists: store its registers into stage (ko + 1) mod 2, start loading
        K step ko + 2 (if it exists), then `publish` (the async proxy's fence, or a barrier)."""
        n, d0 = self.ko_n, AffineExpr.dimension(0)
        if n == 1:
            return

        def more() -> None:
            self.store_both(self.index((d0 + 1) % 2, [ko], "next"))
            if n > 2:
                ko2 = self.index(d0 + 2, [ko], "ko2")
                self.if_(self.emit(arith.CmpiOp(ko2, self.const(n), "ult")).results[0], lambda: self.fill_both(ko2))
            self.emit(publish())

        ko1 = self.index(d0 + 1, [ko], "ko1")
        self.if_(self.emit(arith.CmpiOp(ko1, self.const(n), "ult")).results[0], more)

    def sync_fragments(self, ko: SSAValue, kk: int, halves: int) -> tuple[list, list]:
        """Each warp's A fragments (per mi: 4 (hi, lo) pairs) and B fragments (per ni: 2 pairs) of
        K step kk of stage ko mod 2, split in registers (lo None where `halves` is 1)."""
        (wm, _), (wn, _), (g, _), (t, _) = self.threads
        mi_n, ni_n = self.cells[0][1], self.cells[1][1]
        wm_v, wn_v, g_v, t_v = (self.vm[v] for v in (wm, wn, g, t))
        d = [AffineExpr.dimension(i) for i in range(4)]  # ko, warp row/col, g, t

        def split(v: SSAValue) -> tuple[SSAValue, SSAValue | None]:
            hi = self.emit(mma.Tf32Op(v)).results[0]
            if halves == 1:
                return hi, None
            rem = self.emit(arith.SubfOp(v, hi)).results[0]
            return hi, self.emit(mma.Tf32Op(rem)).results[0]

        def frag(side: str, warp: SSAValue, rows_per_warp: int, row_off: int, col_off: int):
            # stage[ko mod 2, warp * rows_per_warp + row_off + g, kk * 8 + t + col_off]
            amap = AffineMap(4, 0, (d[0] % 2, d[1] * rows_per_warp + d[2] + row_off, d[3] + kk * 8 + col_off))
            return split(self.emit(K.LoadOp(self.smem[(side, "hi")], [ko, warp, g_v, t_v], amap)).results[0])

        offs = [(0, 0), (8, 0), (0, 4), (8, 4)]  # a0 (g, t), a1 (g+8, t), a2 (g, t+4), a3 (g+8, t+4)
        a = [[frag("a", wm_v, 16 * mi_n, 16 * mi + r, c) for r, c in offs] for mi in range(mi_n)]
        b = [[frag("b", wn_v, 8 * ni_n, 8 * ni, c) for c in (0, 4)] for ni in range(ni_n)]  # b0 (t), b1 (t+4)
        return a, b

    def sync_chain(self, ko: SSAValue, steps: range) -> None:
        """One accumulation chain per m16n8 tile of the warp over K steps `steps` of stage ko mod 2,
        from zero: the small terms of every step (lo*hi, hi*lo), then hi*hi, added into the
        accumulators at the end. Fragments are loaded and split per step, and loaded again for
        the hi*hi pass when the chain spans more than one step (fewer live registers)."""
        mi_n, ni_n = self.cells[0][1], self.cells[1][1]
        zero = self.const(0.0, Float32Type())
        tiles = {(mi, ni): [zero] * 4 for mi in range(mi_n) for ni in range(ni_n)}
        frags: dict[int, tuple[list, list]] = {}
        for terms, halves in ((self.small, 2), (self.large, 1)):
            if not terms:
                continue
            for kk in steps:
                if kk not in frags:
                    frags[kk] = self.sync_fragments(ko, kk, halves)
                a, b = frags[kk]
                for (mi, ni), cs in tiles.items():
                    for i, j in terms:
                        cs = list(self.emit(mma.MmaSyncOp([x[i] for x in a[mi]], [x[j] for x in b[ni]], cs)).results)
                    tiles[(mi, ni)] = cs
            if len(steps) > 1:
                frags = {}
        for (mi, ni), cs in tiles.items():
            base = (mi * ni_n + ni) * 4
            for i, cv in enumerate(cs):
                amap = AffineMap(0, 0, (AffineConstantExpr(base + i),))
                old = self.emit(K.LoadOp(self.acc, [], amap)).results[0]
                self.emit(K.StoreOp(self.emit(arith.AddfOp(old, cv)).results[0], self.acc, [], amap))
