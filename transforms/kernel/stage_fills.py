"""How `lower-stages` fills a shared-memory stage: the copy loops, one per copy kind.

A `tile.stage` (dialects/tile.py) is a slab of a global buffer copied into shared memory by all
threads of the block. `StageFills` turns one fill of one stage into kernel ops at the current
insertion point:

- `sync`: a thread-strided copy loop (`kernel.load` + `kernel.store`), 4 floats per copy
  (float4) when the slab's inner run is provably 16-byte aligned in global memory (4 stores when
  the shared rows are padded off that alignment);
- `async`: `kernel.cp_async` of 16 bytes per copy when aligned on both sides, else one element;
  (the caller commits and waits);
- `tma`: thread 0 announces the bytes on the stage's mbarrier and issues one bulk copy
  (`kernel.tma_load`) per contiguous slab row; it falls back to `async` when the rows are not
  16-byte multiples (`copy_mode`).

A masked stage (`{tile.masked = [dims]}`, a slab that may leave its source along those dims) is
filled with one bounds guard per copy, zeros written into shared memory outside
(transforms/kernel/masking.py), and is never a TMA copy.

A stage with `buffers N at %k` is filled into slot `k mod N` (`kval` is the value of k for this
fill, `subst` replaces the loop's index by it in the origin).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type, IndexType, MemRefType
from xdsl.ir import Block, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap

from dpl.dialects import kernel as K
from dpl.dialects import tile
from dpl.dialects.tile import CopyKind
from dpl.transforms.kernel import masking
from dpl.dialects.types import element_bytes
from dpl.transforms.kernel.lowering import TileLowering, const_of, multiple_of

FILL_UNROLL_TRIPS = 16
"""A copy loop of at most this many trips per thread is unrolled: counted, each trip's copy under
`if (flat < count)` where the threads do not divide the count, so a thread's loads issue
together. As a loop from the thread's index (a trip count nvcc cannot know), nvcc ran the
remainder trips one load latency after another: on the H200 (session 17) a row of 1117 staged
by 256 threads, 4 or 5 trips a thread, took 2 latencies. 16, not 8 (H200, session 18,
fillab18.py / fillab18b.py, us): a 64 x 32 matmul slab copied element-wise (rows of 2503,
misaligned) by 128 threads, 16 trips each K step, 46.4 -> 38.8 (4096 x 29 x 2503 nt); softmax
64 x 3001 (rows staged by 256 lanes, 12 trips) 5.6 -> 4.3, LayerNorm 100 x 2999 4.8 -> 3.5,
linear 2447 x 33 -> 307 + residual 7.7 -> 6.9; 32 gained nothing more."""


@dataclass
class Loop:
    """An enclosing loop of a stage: its index (as the kernel sees it) and trip count."""

    iv: SSAValue
    extent: int


class StageFills(TileLowering):
    """The fills of one bound tile's stages (see the module docstring)."""

    def __init__(self, kfunc: K.KernelFuncOp, tile_op: tile.TileOp):
        super().__init__(kfunc, tile_op)
        self.loops: list[Loop] = []
        self.mbar: dict[tile.StageOp, SSAValue] = {}
        self.smem: dict[tile.StageOp, SSAValue] = {}

    # -- geometry -------------------------------------------------------------------------------

    def stage_shape(self, st: tile.StageOp) -> tuple[list[int], list[int], list[int], list[int]]:
        """Slab extents, the source dim of each, the padding and the padded (physical) extents."""
        ext = [d.extent.data for d in st.slab]
        sdim = [d.dim.data for d in st.slab]
        pad = [p.data for p in st.pad] if st.pad is not None else [0] * len(ext)
        phys = [e + p for e, p in zip(ext, pad)]
        return ext, sdim, pad, phys

    def stage_elems(self, st: tile.StageOp) -> int:
        return math.prod(self.stage_shape(st)[0])

    def eb(self, st: tile.StageOp) -> int:
        src_t = st.source.type
        assert isinstance(src_t, MemRefType)
        return element_bytes(src_t.element_type)

    def run_width(self, st: tile.StageOp, nbytes: int, dst: bool = True) -> int:
        """Elements per copy so that each copy moves `nbytes` aligned contiguous bytes, or 1
        (with `dst=False` only the global side is checked)."""
        src_t = st.source.type
        assert isinstance(src_t, MemRefType)
        eb = self.eb(st)
        if nbytes % eb:
            return 1
        V = nbytes // eb
        ext, sdim, pad, phys = self.stage_shape(st)
        shape = src_t.get_shape()
        if sdim[-1] != len(shape) - 1 or ext[-1] % V or shape[-1] % V or (dst and phys[-1] % V):
            return 1
        if not multiple_of(st.origin.data.results[-1], V):
            return 1
        return V

    def tma_row_ok(self, st: tile.StageOp) -> bool:
        """Each innermost slab run is contiguous in the source, a multiple of 16 bytes and starts
        16-byte aligned in both memories (a 1-D bulk copy's requirements)."""
        src_t = st.source.type
        assert isinstance(src_t, MemRefType)
        eb = self.eb(st)
        ext, sdim, _, _ = self.stage_shape(st)
        if 16 % eb or sdim[-1] != src_t.get_num_dims() - 1 or (ext[-1] * eb) % 16:
            return False
        return self.run_width(st, 16) == 16 // eb

    def copy_mode(self, st: tile.StageOp) -> str:
        """How the stage is filled: "sync", "async" or "tma"."""
        kind = st.copy.data
        if kind == CopyKind.TMA:
            if self.tma_row_ok(st) and not tile.is_masked(st):  # masked: guarded cp.async
                return "tma"
            kind = CopyKind.ASYNC
        if kind == CopyKind.ASYNC:
            return "async" if self.eb(st) in (4, 8) else "sync"
        return "sync"

    # -- maps -----------------------------------------------------------------------------------

    def fill_maps(self, st, V: int, flat: SSAValue, kval, subst, row: bool = False):
        """Source and destination maps of copy number `flat` (V elements each; with `row`, one
        whole innermost slab run per copy), over shared leaves [flat, origin values..., k]."""
        leaves: list[SSAValue] = [flat]
        reps = [self.index_expr(o, leaves, subst) for o in st.origin_operands]
        origin = [e.replace_dims_and_symbols(reps, []) for e in st.origin.data.results]
        ext, sdim, _, _ = self.stage_shape(st)
        f = AffineExpr.dimension(0)
        n = len(ext)
        lstride = [math.prod(ext[k + 1 :]) for k in range(n)]
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
            coef = math.prod(ext[q] for q in range(k + 1, n) if sdim[q] == sdim[k])
            src[sdim[k]] = src[sdim[k]] + coords[k] * coef
        dst = list(coords)
        if st.buffers is not None:
            if kval in leaves:
                kd = AffineExpr.dimension(leaves.index(kval))
            else:
                c = const_of(kval)
                if c is not None:
                    kd = AffineExpr.constant(c)
                else:
                    leaves.append(kval)
                    kd = AffineExpr.dimension(len(leaves) - 1)
            dst = [kd % st.buffers.data] + dst
        nl = len(leaves)
        return AffineMap(nl, 0, tuple(dst)), AffineMap(nl, 0, tuple(src)), leaves

    def slot_map(self, st, kval, leaves: list[SSAValue] | None = None):
        """The map (over `leaves`, extended if needed) of the stage's barrier / slot index."""
        leaves = [] if leaves is None else leaves
        if st.buffers is None:
            return AffineMap(len(leaves), 0, (AffineExpr.constant(0),)), leaves
        c = const_of(kval)
        if c is not None:
            e = AffineExpr.constant(c % st.buffers.data)
        else:
            if kval not in leaves:
                leaves.append(kval)
            e = AffineExpr.dimension(leaves.index(kval)) % st.buffers.data
        return AffineMap(len(leaves), 0, (e,)), leaves

    # -- copies ---------------------------------------------------------------------------------

    def fill(self, st: tile.StageOp, mode: str, kval, subst) -> None:
        fills = {"sync": self.fill_sync, "async": self.fill_async, "tma": self.fill_tma}
        fills[mode](st, kval, subst)

    def fill_loop(self, count: int, body_fn: Callable[[SSAValue], None], name: str) -> None:
        """Run `body_fn(flat)` for flat in [0, count), spread over the block's threads."""
        T = max(self.T, 1)
        tid = self.tid if self.tid is not None else self.const(0)
        if count <= T:
            self.below(tid, count if count < T else None, body_fn)
            return
        body = Block(arg_types=[IndexType()])
        trips = -(-count // T)
        if trips <= FILL_UNROLL_TRIPS:
            body.args[0].name_hint = f"{name}_j"
            with self.at(body):
                off = self.emit(arith.MuliOp(body.args[0], self.const(T))).results[0]
                flat = self.named(arith.AddiOp(tid, off), f"{name}_flat")
                self.below(flat, count if count % T else None, body_fn)
                self.emit(K.YieldOp())
            self.emit(K.ForOp(0, trips, 1, body, [], 0))
        else:
            body.args[0].name_hint = f"{name}_flat"
            with self.at(body):
                body_fn(body.args[0])
                self.emit(K.YieldOp())
            self.emit(K.ForOp(tid, count, T, body, []))

    def below(self, flat: SSAValue, count: int | None, body_fn: Callable[[SSAValue], None]) -> None:
        """`body_fn(flat)`, under `if (flat < count)` unless `count` is None."""
        if count is None:
            body_fn(flat)
            return
        then = Block()
        with self.at(then):
            body_fn(flat)
            self.emit(K.YieldOp())
        self.emit(K.IfOp(self.cmp(flat, count, "ult"), Region(then)))

    def fill_sync(self, st, kval, subst) -> None:
        src_t = st.source.type
        smem = self.smem[st]
        f32 = isinstance(src_t.element_type, Float32Type)
        V = 4 if f32 and self.run_width(st, 16, dst=False) == 4 else 1
        split = V == 4 and self.run_width(st, 16) != 4  # float4 load, 4 stores into padded rows
        name = st.result.name_hint or "stage"

        def copy(dmap: AffineMap, smap: AffineMap, leaves: list[SSAValue]) -> None:
            v = self.named(K.LoadOp(st.source, leaves, smap, V if V > 1 else None), f"{name}_v")
            if not split:
                self.emit(K.StoreOp(v, smem, leaves, dmap))
                return
            *outer, last = dmap.results
            for lane in range(V):
                e = self.named(K.ExtractOp(v, lane), f"{name}_{'xyzw'[lane]}")
                lmap = AffineMap(dmap.num_dims, 0, (*outer, last + lane))
                self.emit(K.StoreOp(e, smem, leaves, lmap))

        def body(flat: SSAValue) -> None:
            self.masked_copy(st, V, *self.fill_maps(st, V, flat, kval, subst), copy)

        self.fill_loop(self.stage_elems(st) // V, body, name)

    def fill_async(self, st, kval, subst) -> None:
        V = self.run_width(st, 16)
        smem = self.smem[st]
        nbytes = V * self.eb(st)

        def copy(dmap: AffineMap, smap: AffineMap, leaves: list[SSAValue]) -> None:
            self.emit(K.CpAsyncOp(smem, leaves, dmap, st.source, leaves, smap, nbytes))

        def body(flat: SSAValue) -> None:
            self.masked_copy(st, V, *self.fill_maps(st, V, flat, kval, subst), copy)

        self.fill_loop(self.stage_elems(st) // V, body, st.result.name_hint or "stage")

    def masked_copy(self, st, V: int, dmap: AffineMap, smap: AffineMap, leaves: list[SSAValue],
                    copy: Callable[[AffineMap, AffineMap, list[SSAValue]], None]) -> None:  # fmt: skip
        """`copy(dmap, smap, leaves)`; for a masked stage under `if (in)`, writing zeros into
        shared memory otherwise (one guard per copy of V elements: a copy is wholly inside or
        outside, its run starting at a multiple of V in an innermost dim V divides)."""
        dims = tile.masked_dims(st)
        if not dims:
            copy(dmap, smap, leaves)
            return
        cond = masking.in_bounds(self, st.source.type, smap, leaves, dims)
        smem = self.smem[st]
        masking.guarded(self, cond, lambda: copy(dmap, smap, leaves),
                        lambda: masking.zero_fill(self, smem, dmap, leaves, V))  # fmt: skip

    def fill_tma(self, st, kval, subst) -> None:
        """Thread 0 announces the bytes and issues one bulk copy per contiguous slab row."""
        eb = self.eb(st)
        ext, _, _, _ = self.stage_shape(st)
        rows = self.stage_elems(st) // ext[-1]
        smem = self.smem[st]
        bar = self.mbar[st]
        bmap, bleaves = self.slot_map(st, kval)
        then = Block()
        with self.at(then):
            self.emit(K.MbarrierArriveExpectTxOp(bar, bleaves, bmap, self.stage_elems(st) * eb))

            def issue(r: SSAValue) -> None:
                dmap, smap, leaves = self.fill_maps(st, 1, r, kval, subst, row=True)
                bm, _ = self.slot_map(st, kval, leaves)
                self.emit(K.TmaLoadOp(smem, leaves, dmap, st.source, leaves, smap,
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
            self.emit(K.IfOp(self.guard(tuple(self.big)), Region(then)))
        else:
            for op in list(then.ops)[:-1]:
                op.detach()
                self.emit(op)

    # -- TMA completion -------------------------------------------------------------------------

    def tma_wait(self, st, kval) -> None:
        bmap, bleaves = self.slot_map(st, kval)
        phase = self.tma_phase(st, kval)
        self.emit(K.MbarrierWaitOp(self.mbar[st], bleaves, bmap, phase))

    def tma_phase(self, st, kval) -> SSAValue:
        """Parity of the number of earlier completions of this stage's barrier slot."""
        loops = self.loops
        if st.buffers is None:
            if not loops:
                return self.const(0)
            lin = AffineExpr.constant(0)
            for i, lp in enumerate(loops):
                lin = lin + AffineExpr.dimension(i) * math.prod(q.extent for q in loops[i + 1 :])
            p = self.expr_value(lin % 2, [lp.iv for lp in loops])
            p.name_hint = "phase"
            return p
        N = st.buffers.data
        if not loops or loops[-1].iv is not st.buffer_loop:
            self.fail(st, "with buffers needs its buffer loop to be the innermost enclosing loop")
        Kext = loops[-1].extent
        outer = loops[:-1]
        if outer and Kext % N:
            self.fail(st, f"with {N} buffers along a loop of {Kext} trips inside another loop")
        use = AffineExpr.dimension(len(outer)) // N
        for i, _ in enumerate(outer):
            stride = math.prod(q.extent for q in outer[i + 1 :]) * (Kext // N)
            use = use + AffineExpr.dimension(i) * stride
        c = const_of(kval)
        if c is not None and not outer:
            return self.const((c // N) % 2)
        p = self.expr_value(use % 2, [lp.iv for lp in outer] + [kval])
        p.name_hint = "phase"
        return p
