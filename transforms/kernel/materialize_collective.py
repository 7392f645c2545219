"""materialize, the collective parts: `tile.combine` (warp shuffles / shared-memory trees) and
`tile.stage` fills (sync loops, cp.async, TMA bulk copies, software pipelining).

A mixin of `KernelLowering` (materialize.py): it uses that class's helpers (emit, const, access,
lookup, axis values, the enclosing loop stack).
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    Float32Type,
    Float64Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    NoneAttr,
)
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from dpl.dialects import kernel as K
from dpl.dialects import loop, tile
from dpl.dialects.loop import CombineKind
from dpl.dialects.tile import CombineStrategy, CopyKind
from dpl.transforms.kernel import masking

WARP = 32


def _prod(xs) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


def _is_pow2(n: int) -> bool:
    return n >= 1 and (n & (n - 1)) == 0


def _next_pow2(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def _halvings(n: int) -> list[int]:
    out, k = [], n // 2
    while k >= 1:
        out.append(k)
        k //= 2
    return out


def identity(kind: CombineKind, t) -> float | int:
    if isinstance(t, IntegerType):
        w = t.width.data
        return {CombineKind.ADD: 0, CombineKind.MUL: 1, CombineKind.MAX: -(2 ** (w - 1)),
                CombineKind.MIN: 2 ** (w - 1) - 1}[kind]  # fmt: skip
    return {CombineKind.ADD: 0.0, CombineKind.MUL: 1.0, CombineKind.MAX: float("-inf"),
            CombineKind.MIN: float("inf")}[kind]  # fmt: skip


def identity_constant(kind: CombineKind, t) -> arith.ConstantOp:
    """The constant op of `kind`'s identity (`identity`) in scalar type `t`."""
    if isinstance(t, IntegerType):
        return arith.ConstantOp(IntegerAttr(int(identity(kind, t)), t))
    return arith.ConstantOp(FloatAttr(float(identity(kind, t)), t))


def combine_op(kind: CombineKind, a: SSAValue, b: SSAValue) -> Operation:
    """The arith op that combines `a` and `b` by `kind` (float or integer by their type)."""
    is_float = isinstance(a.type, Float32Type | Float64Type)
    cls = {
        CombineKind.ADD: arith.AddfOp if is_float else arith.AddiOp,
        CombineKind.MUL: arith.MulfOp if is_float else arith.MuliOp,
        CombineKind.MAX: arith.MaximumfOp if is_float else arith.MaxSIOp,
        CombineKind.MIN: arith.MinimumfOp if is_float else arith.MinSIOp,
    }[kind]
    return cls(a, b)


class CollectiveMixin:
    # -- combiner arithmetic --------------------------------------------------------------------

    def fold(self, kind: CombineKind, a: SSAValue, b: SSAValue, name: str = "") -> SSAValue:
        r = self.emit(combine_op(kind, a, b)).results[0]
        r.name_hint = name or None
        return r

    def butterfly(self, v: SSAValue, offsets: list[int], kind: CombineKind, name: str) -> SSAValue:
        cur = v
        for i, off in enumerate(offsets):
            sh = self.emit(K.ShuffleXorOp(cur, off)).results[0]
            sh.name_hint = f"{name}_sh{off}"
            last = i == len(offsets) - 1
            cur = self.fold(kind, cur, sh, f"{name}_w" if last else f"{name}_w{off}")
        return cur

    # -- tile.combine ---------------------------------------------------------------------------

    def thread_layout(self) -> tuple[list[int], dict[int, int]]:
        big = [p for p in self.threads if self.extent[p] > 1]
        strides = {p: _prod(self.extent[q] for q in big[i + 1 :]) for i, p in enumerate(big)}
        return big, strides

    def combine_plan(self, op: tile.CombineOp):
        axes = [a.index for a in op.axes if self.extent[a.index] > 1]  # type: ignore[attr-defined]
        if not axes:
            return "none", None
        big, strides = self.thread_layout()
        G = _prod(self.extent[p] for p in axes)
        if op.strategy.data == CombineStrategy.WARP_SHUFFLE and self.T % WARP == 0:
            pow2 = all(_is_pow2(self.extent[p]) and _is_pow2(strides[p]) for p in axes)
            if pow2 and all(strides[p] * self.extent[p] <= WARP for p in axes):
                offsets = sorted(
                    (strides[p] * k for p in axes for k in _halvings(self.extent[p])), reverse=True
                )
                return "xor", offsets
            trailing = set(axes) == set(big[len(big) - len(axes) :])
            if trailing and G % WARP == 0:
                W, Wg = self.T // WARP, G // WARP
                NG = W // Wg
                if Wg == 1:
                    return "xor", _halvings(WARP)
                if NG == 1 or _is_pow2(Wg):
                    return "warps", (W, Wg, NG)
        return "tree", ([p for p in big if p in axes], G)

    def combine(self, op: tile.CombineOp, values: list[SSAValue]) -> list[SSAValue]:
        mode, info = self.combine_plan(op)
        kind = op.kind.data
        name = op.result.name_hint or "acc"
        if mode == "none":
            return values
        names = [name if len(values) == 1 else f"{name}_{i}" for i in range(len(values))]
        if mode == "xor":
            out = [self.butterfly(v, info, kind, n) for v, n in zip(values, names)]
            for o, n in zip(out, names):
                o.name_hint = n
            return out
        if mode == "warps":
            return self.combine_warps(values, kind, names, name, info)
        return self.combine_tree(values, kind, names, name, info)

    def smem_buffer(self, shape: list[int], t, name: str) -> SSAValue:
        op = K.SmemOp(MemRefType(t, shape, NoneAttr(), K.SMEM))
        op.result.name_hint = name
        (self.hoist_blk if self.loops else self.ip).add_op(op)
        return op.result

    def lane_is0(self) -> SSAValue:
        if ("lane0",) not in self.guards:
            with self.at(self.index_blk):
                self.guards[("lane0",)] = self.cmp(self._lane, 0, "eq", "is_lane0")
        return self.guards[("lane0",)]

    def combine_warps(self, values, kind, names, name, info) -> list[SSAValue]:
        W, Wg, NG = info
        lane, warp = self._lane, self._warp
        t = values[0].type
        n = len(values)
        ws = [self.butterfly(v, _halvings(WARP), kind, nm) for v, nm in zip(values, names)]
        in_loop = bool(self.loops)
        R = W if in_loop else 0
        S = W + (NG if in_loop else 0)
        smem = self.smem_buffer([S] if n == 1 else [n, S], t, f"{name}_smem")
        d0 = AffineExpr.dimension(0)

        def at(j: int, e: AffineExpr, nd: int = 1) -> AffineMap:
            return AffineMap(nd, 0, (e,) if n == 1 else (AffineExpr.constant(j), e))

        then = Block([K.StoreOp(w, smem, [warp], at(j, d0)) for j, w in enumerate(ws)] + [K.YieldOp()])
        self.emit(K.IfOp(self.lane_is0(), Region(then)))
        self.emit(K.BarrierOp())
        if ("warp0",) not in self.guards:
            with self.at(self.index_blk):
                self.guards[("warp0",)] = self.cmp(warp, 0, "eq", "is_warp0")
        body = Block()
        with self.at(body):
            width = Wg if NG > 1 else _next_pow2(W)
            in_range = self.cmp(lane, W, "ult", "in_range") if W < WARP else None
            parts = []
            for j in range(n):
                idx = d0 % W if W < WARP else d0
                part = self.emit(K.LoadOp(smem, [lane], at(j, idx))).results[0]
                part.name_hint = "part"
                p = part
                if in_range is not None:
                    sel = arith.SelectOp(in_range, part, self.const(identity(kind, t), t))
                    p = self.emit(sel).results[0]
                    p.name_hint = "p"
                for off in _halvings(width):
                    dn = self.emit(K.ShuffleDownOp(p, off, width)).results[0]
                    dn.name_hint = f"d{off}"
                    p = self.fold(kind, p, dn, f"p{off}")
                parts.append(p)
            if NG == 1:
                cond = self.lane_is0()
                stores = [K.StoreOp(p, smem, [], at(j, AffineExpr.constant(R), 0))
                          for j, p in enumerate(parts)]  # fmt: skip
            else:
                seg0 = self.cmp(self.remui(lane, Wg), 0, "eq")
                cond = self.emit(arith.AndIOp(seg0, in_range)).results[0] if in_range else seg0
                stores = [K.StoreOp(p, smem, [lane], at(j, d0 // Wg + R)) for j, p in enumerate(parts)]
            self.emit(K.IfOp(cond, Region(Block([*stores, K.YieldOp()]))))
            self.emit(K.YieldOp())
        self.emit(K.IfOp(self.guards[("warp0",)], Region(body)))
        self.emit(K.BarrierOp())
        out = []
        for j, nm in enumerate(names):
            if NG == 1:
                r = self.emit(K.LoadOp(smem, [], at(j, AffineExpr.constant(R), 0))).results[0]
            else:
                r = self.emit(K.LoadOp(smem, [warp], at(j, d0 // Wg + R))).results[0]
            r.name_hint = nm
            out.append(r)
        return out

    def combine_tree(self, values, kind, names, name, info) -> list[SSAValue]:
        axes, G = info
        big, _ = self.thread_layout()
        others = [p for p in big if p not in axes]
        NG = _prod(self.extent[p] for p in others)
        t = values[0].type
        n = len(values)
        smem = self.smem_buffer([NG * G] if n == 1 else [n, NG * G], t, f"{name}_smem")
        if not others:
            leaves = [self.tid]
            pexpr = AffineExpr.dimension(0)
            gexpr = AffineExpr.constant(0)
        else:
            leaves = [self.axis_val[p] for p in axes + others]
            pexpr, gexpr = AffineExpr.constant(0), AffineExpr.constant(0)
            for i, p in enumerate(axes):
                pexpr = pexpr + AffineExpr.dimension(i) * _prod(self.extent[q] for q in axes[i + 1 :])
            for i, p in enumerate(others):
                gexpr = gexpr + AffineExpr.dimension(len(axes) + i) * _prod(
                    self.extent[q] for q in others[i + 1 :]
                )
        base = gexpr * G
        slot = base + pexpr
        nl = len(leaves)

        def at(j: int, e: AffineExpr) -> AffineMap:
            return AffineMap(nl, 0, (e,) if n == 1 else (AffineExpr.constant(j), e))

        for j, v in enumerate(values):
            self.emit(K.StoreOp(v, smem, leaves, at(j, slot)))
        self.emit(K.BarrierOp())
        pval = self.tid if not others else self.expr_value(pexpr, leaves)
        live = G
        while live > 1:
            s = _next_pow2(live) // 2
            cond = self.cmp(pval, live - s, "ult")
            then = Block()
            with self.at(then):
                for j in range(n):
                    a = self.emit(K.LoadOp(smem, leaves, at(j, slot))).results[0]
                    b = self.emit(K.LoadOp(smem, leaves, at(j, slot + s))).results[0]
                    self.emit(K.StoreOp(self.fold(kind, a, b), smem, leaves, at(j, slot)))
                self.emit(K.YieldOp())
            self.emit(K.IfOp(cond, Region(then)))
            self.emit(K.BarrierOp())
            live = s
        out = []
        for j, nm in enumerate(names):
            r = self.emit(K.LoadOp(smem, leaves, at(j, base))).results[0]
            r.name_hint = nm
            out.append(r)
        if self.loops:
            self.emit(K.BarrierOp())  # the next iteration overwrites what was just read
        return out

    # -- tile.stage -----------------------------------------------------------------------------

    def stage_shape(self, st: tile.StageOp) -> tuple[list[int], list[int], list[int], list[int]]:
        ext = [d.extent.data for d in st.slab]
        sdim = [d.dim.data for d in st.slab]
        pad = [p.data for p in st.pad] if st.pad is not None else [0] * len(ext)
        phys = [e + p for e, p in zip(ext, pad)]
        return ext, sdim, pad, phys

    def alloc_stage(self, st: tile.StageOp, hoist: bool) -> SSAValue:
        src_t = st.source.type
        assert isinstance(src_t, MemRefType)
        _, _, _, phys = self.stage_shape(st)
        shape = ([st.buffers.data] if st.buffers is not None else []) + phys
        op = K.SmemOp(MemRefType(src_t.element_type, shape, NoneAttr(), K.SMEM))
        op.result.name_hint = st.result.name_hint
        (self.hoist_blk if hoist else self.ip).add_op(op)
        self.bind(st.result, op.result)
        return op.result

    def run_width(self, st: tile.StageOp, nbytes: int, dst: bool = True) -> int:
        """Elements per copy so that each copy moves `nbytes` aligned contiguous bytes, or 1
        (with `dst=False` only the global side is checked)."""
        src_t = st.source.type
        assert isinstance(src_t, MemRefType)
        eb = _elem_bytes(src_t.element_type)
        if nbytes % eb:
            return 1
        V = nbytes // eb
        ext, sdim, pad, phys = self.stage_shape(st)
        shape = src_t.get_shape()
        if sdim[-1] != len(shape) - 1 or ext[-1] % V or shape[-1] % V or (dst and phys[-1] % V):
            return 1
        from dpl.transforms.kernel.materialize import multiple_of

        if not multiple_of(st.origin.data.results[-1], V):
            return 1
        return V

    def tma_row_ok(self, st: tile.StageOp) -> bool:
        """Each innermost slab run is contiguous in the source, a multiple of 16 bytes and starts
        16-byte aligned in both memories (a 1-D bulk copy's requirements)."""
        src_t = st.source.type
        assert isinstance(src_t, MemRefType)
        eb = _elem_bytes(src_t.element_type)
        ext, sdim, _, _ = self.stage_shape(st)
        if 16 % eb or sdim[-1] != src_t.get_num_dims() - 1 or (ext[-1] * eb) % 16:
            return False
        return self.run_width(st, 16) == 16 // eb

    def copy_mode(self, st: tile.StageOp) -> str:
        src_t = st.source.type
        assert isinstance(src_t, MemRefType)
        eb = _elem_bytes(src_t.element_type)
        kind = st.copy.data
        if kind == CopyKind.TMA:
            if self.tma_row_ok(st) and not tile.is_masked(st):  # masked: guarded cp.async
                return "tma"
            kind = CopyKind.ASYNC
        if kind == CopyKind.ASYNC:
            return "async" if eb in (4, 8) else "sync"
        return "sync"

    def fill_maps(self, st, V: int, flat: SSAValue, kval, subst, row: bool = False):
        """Source and destination maps of copy number `flat` (V elements each; with `row`, one
        whole innermost slab run per copy), over shared leaves [flat, origin values..., k]."""
        leaves: list[SSAValue] = [flat]
        reps = [self.index_expr(o, self.fixed, leaves, subst) for o in st.origin_operands]
        origin = [e.replace_dims_and_symbols(reps, []) for e in st.origin.data.results]
        ext, sdim, _, _ = self.stage_shape(st)
        f = AffineExpr.dimension(0)
        n = len(ext)
        lstride = [_prod(ext[k + 1 :]) for k in range(n)]
        unit = ext[-1] if row else V  # elements per copy
        coords: list[AffineExpr] = []
        for k in range(n):
            if k == n - 1:
                if row:
                    c = AffineExpr.constant(0)
                else:
                    c = f if k == 0 else f % (ext[k] // V)
                    c = c * V if V > 1 else c
            else:
                div = lstride[k] // unit
                c = f // div if div > 1 else f
                if k > 0:
                    c = c % ext[k]
            coords.append(c)
        src = list(origin)
        for k in range(n):
            coef = _prod(ext[q] for q in range(k + 1, n) if sdim[q] == sdim[k])
            src[sdim[k]] = src[sdim[k]] + coords[k] * coef
        dst = list(coords)
        if st.buffers is not None:
            if kval in leaves:
                kd = AffineExpr.dimension(leaves.index(kval))
            else:
                c = _const_of_value(kval)
                if c is not None:
                    kd = AffineExpr.constant(c)
                else:
                    leaves.append(kval)
                    kd = AffineExpr.dimension(len(leaves) - 1)
            dst = [kd % st.buffers.data] + dst
        nl = len(leaves)
        return AffineMap(nl, 0, tuple(dst)), AffineMap(nl, 0, tuple(src)), leaves

    def fill_loop(self, count: int, body_fn, name: str) -> None:
        """Run `body_fn(flat)` for flat in [0, count), spread over the block's threads."""
        T = max(self.T, 1)
        tid = self.tid if self.tid is not None else self.const(0)
        if count <= T:
            if count == T:
                body_fn(tid)
            else:
                then = Block()
                with self.at(then):
                    body_fn(tid)
                    self.emit(K.YieldOp())
                self.emit(K.IfOp(self.cmp(tid, count, "ult"), Region(then)))
            return
        body = Block(arg_types=[IndexType()])
        if count % T == 0 and count // T <= 8:
            body.args[0].name_hint = f"{name}_j"
            with self.at(body):
                off = self.emit(arith.MuliOp(body.args[0], self.const(T))).results[0]
                flat = self.emit(arith.AddiOp(tid, off)).results[0]
                flat.name_hint = f"{name}_flat"
                body_fn(flat)
                self.emit(K.YieldOp())
            self.emit(K.ForOp(0, count // T, 1, body, [], 0))
        else:
            body.args[0].name_hint = f"{name}_flat"
            with self.at(body):
                body_fn(body.args[0])
                self.emit(K.YieldOp())
            self.emit(K.ForOp(tid, count, T, body, []))

    def stage_elems(self, st) -> int:
        ext, _, _, _ = self.stage_shape(st)
        return _prod(ext)

    def fill_sync(self, st, kval, subst) -> None:
        src_t = st.source.type
        smem = self.lookup(st.result)
        f32 = isinstance(src_t.element_type, Float32Type)
        V = 4 if f32 and self.run_width(st, 16, dst=False) == 4 else 1
        split = V == 4 and self.run_width(st, 16) != 4  # float4 load, 4 stores into padded rows
        name = st.result.name_hint or "stage"

        def copy(dmap, smap, leaves) -> None:
            v = self.emit(K.LoadOp(self.lookup(st.source), leaves, smap, V if V > 1 else None))
            v.results[0].name_hint = f"{name}_v"
            if not split:
                self.emit(K.StoreOp(v.results[0], smem, leaves, dmap))
                return
            *outer, last = dmap.results
            for lane in range(V):
                e = self.emit(K.ExtractOp(v.results[0], lane)).results[0]
                e.name_hint = f"{name}_{'xyzw'[lane]}"
                lmap = AffineMap(dmap.num_dims, 0, (*outer, last + lane))
                self.emit(K.StoreOp(e, smem, leaves, lmap))

        def body(flat: SSAValue) -> None:
            self.masked_copy(st, V, *self.fill_maps(st, V, flat, kval, subst), copy)

        self.fill_loop(self.stage_elems(st) // V, body, name)

    def masked_copy(self, st, V: int, dmap, smap, leaves, copy) -> None:
        """`copy(dmap, smap, leaves)`, under a bounds guard with zeros otherwise when `st` is
        masked (see `masking`)."""
        dims = tile.masked_dims(st)
        if not dims:
            return copy(dmap, smap, leaves)
        cond = masking.in_bounds(self, st.source.type, smap, leaves, dims)
        smem = self.lookup(st.result)
        masking.guarded(self, cond, lambda: copy(dmap, smap, leaves),
                        lambda: masking.zero_fill(self, smem, dmap, leaves, V))  # fmt: skip

    def fill_async(self, st, kval, subst) -> None:
        src_t = st.source.type
        eb = _elem_bytes(src_t.element_type)
        V = self.run_width(st, 16)
        smem = self.lookup(st.result)
        name = st.result.name_hint or "stage"

        def copy(dmap, smap, leaves) -> None:
            self.emit(K.CpAsyncOp(smem, leaves, dmap, self.lookup(st.source), leaves, smap, V * eb))

        def body(flat: SSAValue) -> None:
            self.masked_copy(st, V, *self.fill_maps(st, V, flat, kval, subst), copy)

        self.fill_loop(self.stage_elems(st) // V, body, name)

    def fill_tma(self, st, kval, subst) -> None:
        """Thread 0 announces the bytes and issues one bulk copy per contiguous slab row."""
        src_t = st.source.type
        eb = _elem_bytes(src_t.element_type)
        ext, _, _, _ = self.stage_shape(st)
        rows = self.stage_elems(st) // ext[-1]
        smem = self.lookup(st.result)
        bar = self.mbar[st]
        bmap, bleaves = self.slot_map(st, kval)
        then = Block()
        with self.at(then):
            self.emit(K.MbarrierArriveExpectTxOp(bar, bleaves, bmap, self.stage_elems(st) * eb))

            def issue(r: SSAValue) -> None:
                dmap, smap, leaves = self.fill_maps(st, 1, r, kval, subst, row=True)
                bm, bl = self.slot_map(st, kval, leaves)
                self.emit(K.TmaLoadOp(smem, leaves, dmap, self.lookup(st.source), leaves, smap,
                                      bar, leaves, bm, ext[-1] * eb))  # fmt: skip

            if rows == 1:
                issue(self.const(0))
            else:
                body = Block(arg_types=[IndexType()])
                body.args[0].name_hint = f"{st.result.name_hint or 'stage'}_row"
                with self.at(body):
                    issue(body.args[0])
                    self.emit(K.YieldOp())
                self.emit(K.ForOp(0, rows, 1, body, []))
            self.emit(K.YieldOp())
        if self.tid is not None and self.T > 1:
            self.emit(K.IfOp(self.guard(tuple(p for p in self.threads if self.extent[p] > 1)), Region(then)))
        else:
            for op in list(then.ops)[:-1]:
                op.detach()
                self.emit(op)

    def slot_map(self, st, kval, leaves: list[SSAValue] | None = None):
        """The map (over `leaves`, extended if needed) of the stage's barrier / slot index."""
        leaves = [] if leaves is None else leaves
        if st.buffers is None:
            return AffineMap(len(leaves), 0, (AffineExpr.constant(0),)), leaves
        c = _const_of_value(kval)
        if c is not None:
            e = AffineExpr.constant(c % st.buffers.data)
        else:
            if kval not in leaves:
                leaves.append(kval)
            e = AffineExpr.dimension(leaves.index(kval)) % st.buffers.data
        return AffineMap(len(leaves), 0, (e,)), leaves

    def tma_wait(self, st, kval) -> None:
        bar = self.mbar[st]
        bmap, bleaves = self.slot_map(st, kval)
        phase = self.tma_phase(st, kval)
        self.emit(K.MbarrierWaitOp(bar, bleaves, bmap, phase))

    def tma_phase(self, st, kval) -> SSAValue:
        """Parity of the number of earlier completions of this stage's barrier slot."""
        loops = self.loops
        if st.buffers is None:
            if not loops:
                return self.const(0)
            leaves = [lp.new_iv for lp in loops]
            lin = AffineExpr.constant(0)
            for i, lp in enumerate(loops):
                lin = lin + AffineExpr.dimension(i) * _prod(q.extent for q in loops[i + 1 :])
            p = self.expr_value(lin % 2, leaves)
            p.name_hint = "phase"
            return p
        N = st.buffers.data
        if not loops or loops[-1].old_iv is not st.buffer_loop:
            self.fail(st, "with buffers needs its buffer loop to be the innermost enclosing loop")
        Kext = loops[-1].extent
        outer = loops[:-1]
        if outer and Kext % N:
            self.fail(st, f"with {N} buffers along a loop of {Kext} trips inside another loop")
        leaves = [lp.new_iv for lp in outer] + [kval]
        use = AffineExpr.dimension(len(outer)) // N
        for i, lp in enumerate(outer):
            use = use + AffineExpr.dimension(i) * (_prod(q.extent for q in outer[i + 1 :]) * (Kext // N))
        c = _const_of_value(kval)
        if c is not None and not outer:
            return self.const((c // N) % 2)
        p = self.expr_value(use % 2, leaves)
        p.name_hint = "phase"
        return p

    def emit_mbarriers(self) -> None:
        """One mbarrier per slot of each TMA stage, initialised by thread 0 before any use."""
        stages = [s for s in self.tile.walk() if isinstance(s, tile.StageOp) and self.copy_mode(s) == "tma"]
        if not stages:
            return
        inits: list[Operation] = []
        for st in stages:
            n = st.buffers.data if st.buffers is not None else 1
            op = K.SmemOp(MemRefType(IntegerType(64), [n], NoneAttr(), K.SMEM))
            op.result.name_hint = f"{st.result.name_hint or 'stage'}_bar"
            self.emit(op)
            self.mbar[st] = op.result
            for i in range(n):
                inits.append(K.MbarrierInitOp(op.result, [], AffineMap(0, 0, (AffineExpr.constant(i),)), 1))
        if self.tid is not None and self.T > 1:
            cond = self.guard(tuple(p for p in self.threads if self.extent[p] > 1))
            self.emit(K.IfOp(cond, Region(Block([*inits, K.YieldOp()]))))
        else:
            for op in inits:
                self.emit(op)
        self.emit(K.BarrierOp())

    def emit_stages(self, group: list[tile.StageOp]) -> None:
        in_loop = bool(self.loops)
        modes = [self.copy_mode(st) for st in group]
        ends_with_barrier = any(m in ("sync", "async") for m in modes)
        if in_loop:
            inner = self.loops[-1].old_iv
            safe = ends_with_barrier and all(
                st.buffers is not None and st.buffers.data >= 2 and st.buffer_loop is inner
                for st in group
            )
            if not safe:
                self.emit(K.BarrierOp())  # write-after-read: the last iteration's reads first
        for st in group:
            self.alloc_stage(st, hoist=in_loop)
        for st, mode in zip(group, modes):
            kval = self.lookup(st.buffer_loop) if st.buffer_loop is not None else None
            {"sync": self.fill_sync, "async": self.fill_async, "tma": self.fill_tma}[mode](st, kval, None)
        if "async" in modes:
            self.emit(K.CpAsyncCommitOp())
            self.emit(K.CpAsyncWaitOp(0))
        for st, mode in zip(group, modes):
            if mode == "tma":
                kval = self.lookup(st.buffer_loop) if st.buffer_loop is not None else None
                self.tma_wait(st, kval)
        if ends_with_barrier:
            self.emit(K.BarrierOp())

    # -- software pipelining --------------------------------------------------------------------

    def emit_pipelined(self, op: loop.ForOp, D: int) -> None:
        from dpl.transforms.kernel.materialize import _Loop

        Kext = op.extent.data
        stages = [s for s in op.body.block.ops if isinstance(s, tile.StageOp)]
        rotated = [s for s in stages if s.buffer_loop is op.iv and s.buffers.data >= D]  # type: ignore[union-attr]
        others = [s for s in stages if s not in rotated]
        modes = {s: self.copy_mode(s) for s in stages}
        for s in others:
            if modes[s] == "async":
                modes[s] = "sync"  # a cp.async group of its own would break the wait count
        for s in stages:
            self.alloc_stage(s, hoist=True)
        self.done_stages |= set(stages)
        fills = {"sync": self.fill_sync, "async": self.fill_async, "tma": self.fill_tma}
        any_async = any(modes[s] == "async" for s in rotated)

        def issue(kv: SSAValue) -> None:
            for s in rotated:
                fills[modes[s]](s, kv, {op.iv: kv})

        for j in range(min(D - 1, Kext)):
            issue(self.const(j))
            if any_async:
                self.emit(K.CpAsyncCommitOp())
        entries = self.result_points(op)
        body = Block(arg_types=[IndexType()])
        k = body.args[0]
        k.name_hint = op.iv.name_hint
        self.bind(op.iv, k)
        self.maxval[k] = Kext - 1
        self.loops.append(_Loop(op.iv, k, Kext))
        try:
            with self.at(body):
                section_done = False
                for inner in op.body.block.ops:
                    if isinstance(inner, tile.StageOp):
                        if not section_done:
                            section_done = True
                            for s in others:
                                kval = self.lookup(s.buffer_loop) if s.buffer_loop is not None else None
                                fills[modes[s]](s, kval, None)
                            kn = self.emit(arith.AddiOp(k, self.const(D - 1))).results[0]
                            kn.name_hint = f"{k.name_hint or 'k'}_next"
                            then = Block()
                            with self.at(then):
                                issue(kn)
                                self.emit(K.YieldOp())
                            self.emit(K.IfOp(self.cmp(kn, Kext, "ult"), Region(then)))
                            if any_async:
                                self.emit(K.CpAsyncCommitOp())
                                self.emit(K.CpAsyncWaitOp(D - 1))
                            for s in stages:
                                if modes[s] == "tma":
                                    kval = k if s in rotated else (
                                        self.lookup(s.buffer_loop) if s.buffer_loop is not None else None)  # fmt: skip
                                    self.tma_wait(s, kval)
                            self.emit(K.BarrierOp())
                        continue
                    if isinstance(inner, (loop.YieldOp, loop.AccumulateOp)):
                        continue
                    self.emit_op(inner)
                if others or any(s.buffers.data <= D for s in rotated):  # type: ignore[union-attr]
                    self.emit(K.BarrierOp())  # a slot refilled next is read this iteration
                if entries:
                    self.emit(K.AccumulateOp([kd for _, kd, _, _ in entries],
                                             [self.lookup(v, pt) for _, _, v, pt in entries]))  # fmt: skip
                else:
                    self.emit(K.YieldOp())
        finally:
            self.loops.pop()
        unroll = 0 if tile.is_unrolled(op) else None
        kf = self.emit(K.ForOp(0, Kext, 1, body, [r.type for r, _, _, _ in entries], unroll))
        for (r, _, _, pt), new in zip(entries, kf.results):
            self.define(r, new, pt)


def _elem_bytes(t) -> int:
    if isinstance(t, IntegerType):
        return max(1, t.width.data // 8)
    if isinstance(t, IndexType):
        return 8
    return getattr(t, "bitwidth", 32) // 8


def _const_of_value(v) -> int | None:
    if v is None:
        return None
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(v.type, IndexType):
        return owner.value.value.data  # type: ignore[attr-defined]
    return None
