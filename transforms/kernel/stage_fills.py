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

The `sync` and `async` copies are spread over the threads in one flat order (consecutive
threads, consecutive copies), each copy number split into its coordinates. Where the stage's
rows (slab runs) are not a power of two copies long and that split would divide per copy, the
copies go by rows (a warp or more along a row) or each thread's index is split once (`fill_plan`).

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


SPLIT_ONCE_TRIPS = 32
"""A fill that splits each thread's index once (`fill_plan` "split") is one unrolled loop up to
this many trips (its copies cost a few instructions each); past it, a loop of turns of at most
FILL_UNROLL_TRIPS unrolled trips, splitting once per turn."""

ROWS_UNROLL = 32
"""A fill by rows (`fill_plan` "rows") of at most this many copies a thread is unrolled whole; a
longer one unrolls each row's copies only (at most FILL_UNROLL_TRIPS of them)."""

ROWS_EXTRA = 1.3
"""A fill goes by rows only where its copies a thread are at most this many times the flat
order's: lanes past a row's end still cost their warp a copy instruction. H200 (session 24,
rowab24.py, call 3; x eager, by rows / split once, the ratio in brackets): bmm nt
16 x 128x1491x113 (1.10) 0.89 / 0.82, bmm tt 21 x 25x1381x101 (1.19) 0.88 / 0.80, linear
256 x 97 -> 1152 + GELU (1.23) 1.16 / 1.04, linear 1379 x 47 -> 741 + sum (1.23) 1.14 / 1.30,
bmm nt 9 x 256x512x69 (1.26) 0.91 / 0.88; at 1.33, split once was faster in 3 of 5 (bmm nt
2 x 127x631x17 1.26 / 1.32, matmul nt 2048 x 63 x 17 1.22 / 1.31)."""


def fill_plan(rows: int, per_row: int, threads: int, contiguous: bool) -> str:
    """How the copies of a stage of `rows` slab runs (rows) of `per_row` copies each are spread
    over `threads` threads:

    - "flat": one flat order, each copy number split into its coordinates. Cheap where a row is a
      power of two copies long (shifts and masks) or where the slab is contiguous in both memories
      and unmasked (the copy number is the offset), or where each thread copies once;
    - "rows": `row_lanes` lanes along a row, the other threads down the rows, each thread's
      copies at constant offsets from its first (StageFills.fill_rows), where that costs at most
      ROWS_EXTRA times the flat order's copies;
    - "split": the flat order, each thread's index split into row and column once and stepped by
      constants (StageFills.fill_split_once).

    Splitting each copy's number instead, where a row is not a power of two copies long, costs a
    division and a remainder per copy (about 30 instructions, nvcc's signed magic-number division
    included): as many issue slots as a 64 x 64 matmul tile's multiply-adds spend on the same K
    step."""
    flat_trips = -(-rows * per_row // threads)
    if rows < 2 or threads < 2 or per_row & (per_row - 1) == 0 or contiguous or flat_trips < 2:
        return "flat"
    tc = row_lanes(rows, per_row, threads)
    if tc is not None and rows_trips(rows, per_row, threads, tc) <= ROWS_EXTRA * flat_trips:
        return "rows"
    return "split"


def row_lanes(rows: int, per_row: int, threads: int) -> int | None:
    """The lanes along a row for a fill by rows: the power of two dividing `threads`, at least a
    warp (or the row rounded up to a power of two, if shorter) so that a warp reads along one
    row, with the fewest copies a thread, then the fewest row steps; None if none divides."""
    best: tuple[tuple[int, int], int] | None = None
    tc = min(32, 1 << (per_row - 1).bit_length())
    while tc <= threads:
        if threads % tc == 0:
            key = (rows_trips(rows, per_row, threads, tc), -(-rows // (threads // tc)))
            best = (key, tc) if best is None or key < best[0] else best
        tc *= 2
    return None if best is None else best[1]


def rows_trips(rows: int, per_row: int, threads: int, tc: int) -> int:
    """A thread's copies in a fill by rows with `tc` lanes along a row."""
    return -(-per_row // tc) * -(-rows // (threads // tc))


def source_runs(sdim: list[int]) -> list[tuple[int, int]]:
    """The runs [a, b) of consecutive slab dims over one source dim (`sdim`: each slab dim's)."""
    starts = [k for k in range(len(sdim)) if k == 0 or sdim[k] != sdim[k - 1]]
    return list(zip(starts, starts[1:] + [len(sdim)]))


Copy = Callable[[AffineMap, AffineMap, list[SSAValue]], None]
"""One copy of a fill: `copy(dst_map, src_map, leaves)`."""


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

    def contiguous(self, st: tile.StageOp) -> bool:
        """The slab is one contiguous run in both memories, unmasked: its rows are unpadded and
        each run of slab dims over one source dim is the whole of that dim, past the outermost
        (so the flat copy number is the offset into both)."""
        src_t = st.source.type
        assert isinstance(src_t, MemRefType)
        ext, sdim, pad, _ = self.stage_shape(st)
        if any(pad) or tile.is_masked(st):
            return False
        runs = [(sdim[a], math.prod(ext[a:b])) for a, b in source_runs(sdim)]  # (source dim, extent)
        shape = src_t.get_shape()
        dims = [d for d, _ in runs]
        if dims != list(range(dims[0], len(shape))):
            return False
        return all(e == shape[d] for d, e in runs[1:])

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

    def fill_maps(self, st, V: int, flat: SSAValue, kval, subst, row: bool = False,
                  col: SSAValue | None = None):  # fmt: skip
        """Source and destination maps of copy number `flat` (V elements each; with `row`, one
        whole innermost slab run per copy; with `col`, copy `col` of slab run `flat`), over
        shared leaves [flat, (col,) origin values..., k]."""
        leaves: list[SSAValue] = [flat] if col is None else [flat, col]
        reps = [self.index_expr(o, leaves, subst) for o in st.origin_operands]
        origin = [e.replace_dims_and_symbols(reps, []) for e in st.origin.data.results]
        ext, sdim, _, _ = self.stage_shape(st)
        f = AffineExpr.dimension(0)
        n = len(ext)
        lstride = [math.prod(ext[k + 1 :]) for k in range(n)]
        unit = ext[-1] if row or col is not None else V  # elements per step of `flat`
        coords: list[AffineExpr] = []
        for k in range(n):
            if k == n - 1:
                if row:
                    c = AffineExpr.constant(0)
                elif col is not None:
                    c = AffineExpr.dimension(1) * V if V > 1 else AffineExpr.dimension(1)
                else:
                    c = f if k == 0 else f % (ext[k] // V)
                    c = c * V if V > 1 else c
            else:
                div = lstride[k] // unit
                c = f // div if div > 1 else f
                if k > 0:
                    c = c % ext[k]
            coords.append(c)
        # the source index: consecutive outer slab dims of one source dim read as one digit
        # (f // 116 mod 64, not f // 1856 * 16 + f // 116 mod 16), then the innermost dim
        src = list(origin)
        for k, end in source_runs(sdim[:-1]) + [(n - 1, n)]:
            last = end - 1
            if last == k:
                digit = coords[k]
            else:
                div = lstride[last] // unit
                digit = f // div if div > 1 else f
                digit = digit % math.prod(ext[k:end]) if k > 0 else digit
            coef = math.prod(ext[q] for q in range(end, n) if sdim[q] == sdim[k])
            src[sdim[k]] = src[sdim[k]] + digit * coef
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

    def fill_rows(self, rows: int, per_row: int, body_fn: Callable[[SSAValue, SSAValue], None],
                  name: str) -> None:  # fmt: skip
        """Run `body_fn(r, c)` for r in [0, rows), c in [0, per_row): `row_lanes` lanes along a
        row (c0 = t mod lanes) and the other threads down the rows (r0 = t / lanes), each
        thread's copies at r0 + i (T / lanes), c0 + j lanes; guarded where the lanes or rows
        overshoot."""
        T = self.T
        assert self.tid is not None
        tc = row_lanes(rows, per_row, T)
        assert tc is not None
        tr = T // tc
        lane_c = self.remui(self.tid, tc, f"{name}_c0") if tr > 1 else self.tid
        lane_r = self.divui(self.tid, tc, f"{name}_r0") if tr > 1 else self.const(0)
        rtrips, ctrips = -(-rows // tr), -(-per_row // tc)
        whole = rtrips * ctrips <= ROWS_UNROLL

        def stepped(lane: SSAValue, trips: int, step: int, count: int, suffix: str, unroll: bool,
                    body: Callable[[SSAValue], None]) -> None:  # fmt: skip
            """body(lane + j step) for j < trips, under `< count` where the lanes overshoot."""
            guard = count if trips * step > count else None

            def trip(j: SSAValue | None) -> None:
                v = lane
                if j is not None:
                    off = self.emit(arith.MuliOp(j, self.const(step))).results[0]
                    v = self.named(arith.AddiOp(lane, off), f"{name}_{suffix}")
                self.below(v, guard, body)

            if trips == 1:
                trip(None)
                return
            block = Block(arg_types=[IndexType()])
            block.args[0].name_hint = f"{name}_{suffix}j"
            with self.at(block):
                trip(block.args[0])
                self.emit(K.YieldOp())
            self.emit(K.ForOp(0, trips, 1, block, [], 0 if unroll else None))

        stepped(lane_r, rtrips, tr, rows, "r", whole, lambda r: stepped(
            lane_c, ctrips, tc, per_row, "c", whole or ctrips <= FILL_UNROLL_TRIPS,
            lambda c: body_fn(r, c)))  # fmt: skip

    def fill_split_once(self, rows: int, per_row: int,
                        body_fn: Callable[[SSAValue, SSAValue], None], name: str) -> None:  # fmt: skip
        """Run `body_fn(r, c)` for each copy r * per_row + c of the flat order `fill_loop`
        spreads, in unrolled trips: thread t's copy on trip j is t + j T, so with t split once
        into (r0, c0) and j T = a_j per_row + b_j (constants once nvcc unrolls), it is run
        r0 + a_j + w, column c0 + b_j - w per_row, w = (c0 + b_j >= per_row). Past
        SPLIT_ONCE_TRIPS trips, a loop of turns of U <= FILL_UNROLL_TRIPS unrolled trips each,
        t + g U T split once per turn g."""
        T = self.T
        assert self.tid is not None
        count = rows * per_row
        trips = -(-count // T)
        turns = 1 if trips <= SPLIT_ONCE_TRIPS else -(-trips // FILL_UNROLL_TRIPS)
        U = -(-trips // turns)
        d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)

        def turn(first: SSAValue) -> None:
            r0 = self.divui(first, per_row, f"{name}_r0")
            c0 = self.remui(first, per_row, f"{name}_c0")
            block = Block(arg_types=[IndexType()])
            j = block.args[0]
            j.name_hint = f"{name}_j"
            with self.at(block):
                s = self.expr_value(d0 + (d1 * T) % per_row, [c0, j])
                w = self.cmp(s, per_row, "uge", f"{name}_wrap")
                c_wrapped = self.expr_value(d0 - per_row, [s])
                c = self.named(arith.SelectOp(w, c_wrapped, s), f"{name}_c")
                base = self.expr_value(d0 + (d1 * T) // per_row, [r0, j])
                base_next = self.expr_value(d0 + 1, [base])
                r = self.named(arith.SelectOp(w, base_next, base), f"{name}_r")
                self.below(r, rows if turns * U * T > count else None, lambda r_: body_fn(r_, c))
                self.emit(K.YieldOp())
            self.emit(K.ForOp(0, U, 1, block, [], 0))

        if turns == 1:
            turn(self.tid)
            return
        outer = Block(arg_types=[IndexType()])
        outer.args[0].name_hint = f"{name}_g"
        with self.at(outer):
            turn(self.named(arith.AddiOp(self.tid, self.emit(arith.MuliOp(
                outer.args[0], self.const(U * T))).results[0]), f"{name}_first"))  # fmt: skip
            self.emit(K.YieldOp())
        self.emit(K.ForOp(0, turns, 1, outer, []))

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

        self.fill_copies(st, V, kval, subst, copy, name)

    def fill_copies(self, st, V: int, kval, subst, copy: Copy, name: str) -> None:
        """Every copy of V elements of the stage, spread over the threads as `fill_plan` says:
        `fill_loop`, `fill_rows` or `fill_split_once`."""
        ext = self.stage_shape(st)[0]
        per_row, count = ext[-1] // V, self.stage_elems(st) // V
        plan = fill_plan(count // per_row, per_row, self.T if self.tid is not None else 1,
                         self.contiguous(st))  # fmt: skip
        if plan != "flat":
            fill = self.fill_rows if plan == "rows" else self.fill_split_once
            fill(count // per_row, per_row, lambda r, c: self.masked_copy(
                st, V, *self.fill_maps(st, V, r, kval, subst, col=c), copy), name)  # fmt: skip
            return

        def body(flat: SSAValue) -> None:
            self.masked_copy(st, V, *self.fill_maps(st, V, flat, kval, subst), copy)

        self.fill_loop(count, body, name)

    def fill_async(self, st, kval, subst) -> None:
        V = self.run_width(st, 16)
        smem = self.smem[st]
        nbytes = V * self.eb(st)

        def copy(dmap: AffineMap, smap: AffineMap, leaves: list[SSAValue]) -> None:
            self.emit(K.CpAsyncOp(smem, leaves, dmap, st.source, leaves, smap, nbytes))

        self.fill_copies(st, V, kval, subst, copy, st.result.name_hint or "stage")

    def masked_copy(self, st, V: int, dmap: AffineMap, smap: AffineMap, leaves: list[SSAValue],
                    copy: Copy) -> None:  # fmt: skip
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
