"""materialize: lower each `tile.kernel` of @main into a `kernel.func` plus a `kernel.launch`.

The schedule in tile IR becomes hardware primitives (docs/tile.md, docs/kernel.md):

- `block` axes -> `kernel.block_id` (x/y/z, the last listed in x, when there are at most three
  and y/z fit 65535; else one flat x index split by div/mod); `thread` axes -> one flat
  `kernel.thread_id x` split by div/mod (the last listed varies fastest).
- `cell` axes (a register tile) are unrolled in the IR: an op that does not depend on a cell axis
  is emitted once, a cell-dependent value gets one copy per cell point of the cell axes it
  depends on; a reduce loop over cells is ONE `kernel.for` whose results are the per-cell
  accumulators (so they live in registers).
- `tile.strided_for` / `loop.for` -> `kernel.for` (reduce: results + `kernel.accumulate`;
  `{tile.unroll}` -> `unroll`). A strided loop every thread runs exactly `t` times becomes
  `0 to t step 1` with the induction value `start + j * step` so nvcc unrolls it fully; one that
  runs at most once becomes straight-line code or a `kernel.if`.
- `tile.stage` -> a `kernel.smem` buffer ([buffers] + slab extents + pad) and its fill: `sync`
  a thread-strided copy loop (float4 when the slab's inner run is provably 16-byte aligned) and a
  barrier; `async` cp.async (16 bytes when aligned, else one element) + commit/wait 0/barrier;
  `tma` one bulk copy per contiguous slab row issued by thread 0 on an mbarrier that every
  thread waits on with the phase bit of that use (falls back to cp.async when the rows are not
  16-byte multiples). A barrier before a refill inside a loop orders the previous reads
  (write-after-read) unless the stage is double-buffered behind a fill barrier.
- `{tile.pipeline = D}` on a K-outer loop: prologue fills iterations 0..D-2; each iteration
  issues the fill of iteration k+D-1 (guarded by k+D-1 < K, so the tail iterations are the
  epilogue), commits, waits for D-1 groups, barriers, computes on slot k mod N, and barriers
  again when a slot could be refilled before every thread has read it.
- `tile.combine` -> `warp_shuffle`: xor butterflies when the combined threads are lanes of one
  warp, else butterflies, lane 0 of each warp to a `kernel.smem [warps]` buffer, warp 0 folding
  with shuffle_down and broadcasting through shared memory (as test/lit/translate/rms_norm.mlir);
  `tree` (or shapes shuffles cannot serve) a shared-memory tree over each group of threads.
- `tile.atomic` -> `kernel.atomic`; the buffers it folds into start at the combiner's identity,
  written by a small `kernel.func @<name>_init` launched just before. Like a store, an atomic
  that does not depend on some thread axis is done by the threads at 0 on that axis only.
- A global store that does not depend on some thread axis is written by the threads at 0 on
  that axis only (`kernel.if`), not redundantly by every thread.
- Static shared memory over 48 KiB becomes `kernel.smem dynamic` buffers with the func's `smem`
  set to the total.

A `loop.kernel` left in @main (not tileified) is lowered too: its outer free loop nests are
spread over a grid-stride loop of all threads, the rest runs per thread. Unsupported constructs
raise a one-line ValueError naming the op and the kernel.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith, func
from xdsl.dialects.builtin import (
    FloatAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
    AffineSymExpr,
)
from xdsl.passes import ModulePass

from dpl.dialects import kernel as K
from dpl.dialects import loop, tile
from dpl.dialects.loop import CombineKind
from dpl.dialects.tile import AxisKind
from dpl.transforms.kernel import masking
from dpl.transforms.kernel.materialize_collective import CollectiveMixin, identity_constant

STATIC_SMEM_LIMIT = 48 * 1024
MAX_SMEM = 227 * 1024
MAX_GRID_X = 2**31 - 1
MAX_GRID_YZ = 65535
UNROLL_TRIPS = 64  # exact-trip strided loops marked unroll up to this many trips are rewritten
FILL_UNROLL_TRIPS = 8
VIRTUAL_BLOCK = 256


class MaterializeError(ValueError):
    """A tile construct materialize cannot lower; the message is one line."""


def _elem_bytes(t: Attribute) -> int:
    if isinstance(t, IntegerType):
        return max(1, t.width.data // 8)
    if isinstance(t, IndexType):
        return 8
    return getattr(t, "bitwidth", 32) // 8


def _prod(xs) -> int:
    n = 1
    for x in xs:
        n *= x
    return n


def _is_pow2(n: int) -> bool:
    return n >= 1 and (n & (n - 1)) == 0


def _const_of(v: SSAValue) -> int | None:
    owner = v.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        if isinstance(v.type, IndexType):
            return owner.value.value.data
    return None


def multiple_of(e: AffineExpr, n: int) -> bool:
    """Whether `e` is provably a multiple of `n` for every value of its dims."""
    if n == 1:
        return True
    if isinstance(e, AffineConstantExpr):
        return e.value % n == 0
    if isinstance(e, AffineBinaryOpExpr):
        if e.kind == AffineBinaryOpKind.Add:
            return multiple_of(e.lhs, n) and multiple_of(e.rhs, n)
        if e.kind == AffineBinaryOpKind.Mul:
            return multiple_of(e.lhs, n) or multiple_of(e.rhs, n)
    return False


def _cell_suffix(key: tuple[int, ...]) -> str:
    """`_c01` for cell point (0, 1) (`_c10_3` when an index has two digits)."""
    if not key:
        return ""
    sep = "" if all(k < 10 for k in key) else "_"
    return "_c" + sep.join(map(str, key))


class _Val:
    """An old value's new copies: one per point of the cell axes it depends on."""

    __slots__ = ("deps", "vals")

    def __init__(self, deps: tuple[int, ...]):
        self.deps = deps
        self.vals: dict[tuple[int, ...], SSAValue] = {}


@dataclass
class _Loop:
    old_iv: SSAValue | None
    new_iv: SSAValue
    extent: int


class KernelLowering(CollectiveMixin):
    """Builds the `kernel.func` of one `tile.kernel`."""

    def __init__(self, kop: tile.KernelOp):
        self.kop = kop
        self.name = kop.sym_name.data
        self.tile = kop.tile
        self.axes = self.tile.axes
        self.extent = {i: e for i, (_, e, _) in enumerate(self.axes)}
        self.kind = {i: k for i, (_, _, k) in enumerate(self.axes)}
        self.cells = [i for i, (_, _, k) in enumerate(self.axes) if k == AxisKind.CELL]
        self.threads = [i for i, (_, _, k) in enumerate(self.axes) if k == AxisKind.THREAD]
        self.blocks = [i for i, (_, _, k) in enumerate(self.axes) if k == AxisKind.BLOCK]
        self.cell_set = set(self.cells)
        self.T = _prod(self.extent[i] for i in self.threads)
        self.old_args = [*kop.ins, *kop.outs]
        if len(set(self.old_args)) != len(self.old_args):
            self.fail(kop, "passes one buffer twice")
        self.fblock = Block(arg_types=[a.type for a in self.old_args])
        self.const_blk, self.index_blk, self.hoist_blk, self.body_blk = (Block() for _ in range(4))
        self.ip = self.body_blk
        self.consts: dict[tuple, SSAValue] = {}
        self.vmap: dict[SSAValue, _Val] = {}
        self.deps: dict[SSAValue, frozenset[int]] = {}
        self.fixed: dict[int, int] = {}
        self.exec_deps: frozenset[int] = frozenset()
        self.loops: list[_Loop] = []
        self.maxval: dict[SSAValue, int] = {}
        self.axis_val: dict[int, SSAValue] = {}
        self.guards: dict[tuple[int, ...], SSAValue] = {}
        self.tid: SSAValue | None = None
        self._lane: SSAValue | None = None
        self._warp: SSAValue | None = None
        self.mbar: dict[tile.StageOp, SSAValue] = {}
        self.done_stages: set[tile.StageOp] = set()
        self.atomic_outs: dict[SSAValue, CombineKind] = {}
        self.grid = [1, 1, 1]
        self.body_guard: SSAValue | None = None
        self.block_dims = [max(self.T, 1), 1, 1]
        for new, old in zip(self.fblock.args, self.old_args):
            new.name_hint = old.name_hint
            self.bind(old, new)

    # -- errors ---------------------------------------------------------------------------------

    def fail(self, op: Operation, what: str):
        raise MaterializeError(f"materialize: @{self.name}: '{op.name}' {what}")

    # -- values ---------------------------------------------------------------------------------

    def d(self, v: SSAValue) -> frozenset[int]:
        return self.deps.get(v, frozenset())

    def cdeps(self, deps: frozenset[int]) -> tuple[int, ...]:
        return tuple(sorted(p for p in deps if p in self.cell_set))

    def bind(self, old: SSAValue, new: SSAValue) -> None:
        val = _Val(())
        val.vals[()] = new
        self.vmap[old] = val

    def define(self, old: SSAValue, new: SSAValue, pt: dict[int, int]) -> None:
        ds = self.cdeps(self.d(old))
        val = self.vmap.get(old)
        if val is None or val.deps != ds:
            val = self.vmap[old] = _Val(ds)
        key = tuple(pt[p] for p in ds)
        val.vals[key] = new
        if old.name_hint and not new.name_hint:
            new.name_hint = old.name_hint + _cell_suffix(key)

    def lookup(self, old: SSAValue, pt: dict[int, int] | None = None) -> SSAValue:
        pt = self.fixed if pt is None else pt
        val = self.vmap.get(old)
        if val is None:
            raise MaterializeError(
                f"materialize: @{self.name}: a value used before it is lowered ({old.name_hint})"
            )
        return val.vals[tuple(pt[p] for p in val.deps)]

    def points(self, deps: frozenset[int]) -> Iterator[dict[int, int]]:
        free = [p for p in self.cdeps(deps) if p not in self.fixed]
        for combo in itertools.product(*(range(self.extent[p]) for p in free)):
            pt = dict(self.fixed)
            pt.update(zip(free, combo))
            yield pt

    def const(self, value: int | float, t: Attribute | None = None) -> SSAValue:
        t = IndexType() if t is None else t
        key = (value, str(t))
        if key not in self.consts:
            if isinstance(t, IndexType | IntegerType):
                op = arith.ConstantOp(IntegerAttr(int(value), t))
            else:
                op = arith.ConstantOp(FloatAttr(float(value), t))
            self.const_blk.add_op(op)
            self.consts[key] = op.result
        return self.consts[key]

    def emit(self, op: Operation) -> Operation:
        self.ip.add_op(op)
        return op

    @contextmanager
    def at(self, block: Block):
        saved = self.ip
        self.ip = block
        try:
            yield block
        finally:
            self.ip = saved

    @contextmanager
    def fixing(self, pt: dict[int, int]):
        saved = self.fixed
        self.fixed = dict(pt)
        try:
            yield
        finally:
            self.fixed = saved

    # index arithmetic -------------------------------------------------------------------------

    def divui(self, a: SSAValue, n: int, name: str = "") -> SSAValue:
        if n == 1:
            return a
        r = self.emit(arith.DivUIOp(a, self.const(n))).results[0]
        r.name_hint = name or None
        return r

    def remui(self, a: SSAValue, n: int, name: str = "") -> SSAValue:
        r = self.emit(arith.RemUIOp(a, self.const(n))).results[0]
        r.name_hint = name or None
        return r

    def cmp(self, a: SSAValue, b: SSAValue | int, pred: str, name: str = "") -> SSAValue:
        if isinstance(b, int):
            b = self.const(b)
        r = self.emit(arith.CmpiOp(a, b, pred)).results[0]
        r.name_hint = name or None
        return r

    def expr_value(self, e: AffineExpr, leaves: Sequence[SSAValue]) -> SSAValue:
        """An affine expression over `leaves` as index arithmetic (non-negative operands)."""
        if isinstance(e, AffineConstantExpr):
            return self.const(e.value)
        if isinstance(e, AffineDimExpr):
            return leaves[e.position]
        if isinstance(e, AffineSymExpr):
            raise MaterializeError(f"materialize: @{self.name}: symbols in an index map")
        assert isinstance(e, AffineBinaryOpExpr)
        lhs, rhs = self.expr_value(e.lhs, leaves), self.expr_value(e.rhs, leaves)
        cls = {
            AffineBinaryOpKind.Add: arith.AddiOp,
            AffineBinaryOpKind.Mul: arith.MuliOp,
            AffineBinaryOpKind.FloorDiv: arith.DivUIOp,
            AffineBinaryOpKind.Mod: arith.RemUIOp,
            AffineBinaryOpKind.CeilDiv: arith.CeilDivUIOp,
        }[e.kind]
        return self.emit(cls(lhs, rhs)).results[0]

    def index_expr(
        self,
        old: SSAValue,
        pt: dict[int, int],
        leaves: list[SSAValue],
        subst: dict[SSAValue, SSAValue] | None = None,
    ) -> AffineExpr:
        """`old` (a tile-level index) as an expression over new leaf values: cell axes become
        constants, tile-level affine.apply ops are folded in, constants are inlined."""
        if subst and old in subst:
            new = subst[old]
        else:
            if isinstance(old, BlockArgument) and old.block is self.tile.body.block:
                if old.index in self.cell_set:
                    return AffineExpr.constant(pt[old.index])
            owner = old.owner
            if isinstance(owner, affine.ApplyOp):
                amap = owner.map.data
                subs = [self.index_expr(o, pt, leaves, subst) for o in owner.mapOperands]
                return amap.results[0].replace_dims_and_symbols(
                    subs[: amap.num_dims], subs[amap.num_dims :]
                )
            new = self.lookup(old, pt)
        c = _const_of(new)
        if c is not None:
            return AffineExpr.constant(c)
        for i, leaf in enumerate(leaves):
            if leaf is new:
                return AffineExpr.dimension(i)
        leaves.append(new)
        return AffineExpr.dimension(len(leaves) - 1)

    def access(
        self,
        amap: AffineMap,
        olds: Sequence[SSAValue],
        pt: dict[int, int],
        subst: dict[SSAValue, SSAValue] | None = None,
    ) -> tuple[AffineMap, list[SSAValue]]:
        leaves: list[SSAValue] = []
        reps = [self.index_expr(o, pt, leaves, subst) for o in olds]
        new = amap.replace_dims_and_symbols(
            reps[: amap.num_dims], reps[amap.num_dims :], len(leaves), 0
        )
        return new, leaves

    # -- analysis -------------------------------------------------------------------------------

    def analyze(self, block: Block) -> None:
        for op in block.ops:
            if isinstance(op, tile.StridedForOp):
                h = self.d(op.start)
                self.deps[op.iv] = h
                self.analyze(op.body.block)
                last = op.body.block.last_op
                if op.is_reduce and isinstance(last, loop.AccumulateOp):
                    for r, v in zip(op.res, last.values):
                        self.deps[r] = self.d(v) | h
            elif isinstance(op, loop.ForOp):
                self.deps[op.iv] = frozenset()
                self.analyze(op.body.block)
                last = op.body.block.last_op
                if op.is_reduce and isinstance(last, loop.AccumulateOp):
                    for r, v in zip(op.res, last.values):
                        self.deps[r] = self.d(v)
            elif isinstance(op, tile.CombineOp):
                axes = {a.index for a in op.axes}  # type: ignore[attr-defined]
                self.deps[op.result] = self.d(op.value) - axes
            else:
                dd = frozenset().union(*(self.d(o) for o in op.operands))
                for region in op.regions:
                    for b in region.blocks:
                        self.analyze(b)
                for r in op.results:
                    self.deps[r] = dd

    # -- the kernel -----------------------------------------------------------------------------

    def lower(self) -> K.KernelFuncOp:
        for i, (v, _, _) in enumerate(self.axes):
            self.deps[v] = frozenset({i})
        self.analyze(self.tile.body.block)
        # uniform ops before the tile (constants)
        with self.at(self.const_blk):
            for op in self.kop.body.block.ops:
                if op is self.tile:
                    break
                self.emit_op(op)
        with self.at(self.index_blk):
            self.emit_axes()
            self.emit_mbarriers()
        self.emit_block(self.tile.body.block)
        self.check_no_stage_after_tile()
        if self.body_guard is not None:
            inner = Block()
            for op in list(self.body_blk.ops):
                op.detach()
                inner.add_op(op)
            inner.add_op(K.YieldOp())
            self.body_blk.add_op(K.IfOp(self.body_guard, Region(inner)))
        fblock = self.fblock
        for blk in (self.const_blk, self.index_blk, self.hoist_blk, self.body_blk):
            for op in list(blk.ops):
                op.detach()
                fblock.add_op(op)
        kfunc = K.KernelFuncOp(
            self.name,
            [a.type for a in self.old_args],
            self.grid,
            self.block_dims,
            0,
            Region(fblock),
        )
        _dce(kfunc)
        _dynamic_smem(kfunc, self)
        return kfunc

    def check_no_stage_after_tile(self) -> None:
        for op in self.kop.body.block.ops:
            if op is not self.tile and op.regions:
                self.fail(op, "outside the tile.tile is not supported")

    def emit_axes(self) -> None:
        axes = self.axes
        # blocks: the last listed in x
        blocks = [p for p in self.blocks]
        total_blocks = _prod(self.extent[p] for p in blocks)
        if total_blocks > MAX_GRID_X:
            self.fail(self.tile, f"has {total_blocks} blocks, more than CUDA's grid allows")
        rev = list(reversed(blocks))
        fits = len(rev) <= 3 and all(self.extent[p] <= MAX_GRID_YZ for p in rev[1:])
        self.grid_dims_used = len(rev) if fits else 1
        if fits:
            for dim, p in zip((K.Dim.X, K.Dim.Y, K.Dim.Z), rev):
                self.grid[["x", "y", "z"].index(dim.value)] = self.extent[p]
                op = self.emit(K.BlockIdOp(dim))
                op.results[0].name_hint = axes[p][0].name_hint
                self.axis_val[p] = op.results[0]
        else:
            self.grid = [total_blocks, 1, 1]
            bid = self.emit(K.BlockIdOp(K.Dim.X)).results[0]
            bid.name_hint = "bid"
            self.split_flat(bid, blocks)
        for p in blocks:
            self.maxval[self.axis_val[p]] = self.extent[p] - 1
        # threads: one flat x index
        if self.threads:
            tid = self.emit(K.ThreadIdOp(K.Dim.X)).results[0]
            big = [p for p in self.threads if self.extent[p] > 1]
            tid.name_hint = axes[big[0]][0].name_hint if len(big) == 1 else "tid"
            if self.T > K.MAX_THREADS_PER_BLOCK:
                tid = self.virtual_threads(tid)
            self.tid = tid
            self.maxval[tid] = self.T - 1
            self.split_flat(tid, self.threads)
            for p in self.threads:
                self.maxval.setdefault(self.axis_val[p], self.extent[p] - 1)
        for p, v in self.axis_val.items():
            self.bind(axes[p][0], v)
        if self.needs_lane_warp():
            self._lane = self.emit(K.LaneIdOp()).results[0]
            self._lane.name_hint = "lane" if axes and "lane" not in self.hints() else "lane_id"
            self._warp = self.emit(K.WarpIdOp()).results[0]
            self._warp.name_hint = "warp"

    def virtual_threads(self, local: SSAValue) -> SSAValue:
        """More threads than a block holds and nothing collective: the thread index is spread
        over blocks of VIRTUAL_BLOCK threads (an extra grid dimension)."""
        for op in self.tile.walk():
            if isinstance(op, (tile.StageOp, tile.CombineOp)):
                self.fail(op, f"needs one block, but the tile has {self.T} threads")
        B = VIRTUAL_BLOCK
        nb = -(-self.T // B)
        self.block_dims = [B, 1, 1]
        free = [i for i in range(self.grid_dims_used, 3)]
        if not free or (free[0] > 0 and nb > MAX_GRID_YZ):
            self.fail(self.tile, f"has {self.T} threads and no grid dimension left for them")
        dim = (K.Dim.X, K.Dim.Y, K.Dim.Z)[free[0]]
        self.grid[free[0]] = nb
        vb = self.emit(K.BlockIdOp(dim)).results[0]
        vb.name_hint = "vblock"
        off = self.emit(arith.MuliOp(vb, self.const(B))).results[0]
        flat = self.emit(arith.AddiOp(off, local)).results[0]
        flat.name_hint = local.name_hint
        local.name_hint = "tid_local"
        if self.T % B:
            self.body_guard = self.cmp(flat, self.T, "ult", "in_tile")
        return flat

    def hints(self) -> set[str]:
        return {v.name_hint for v, _, _ in self.axes if v.name_hint}

    def split_flat(self, flat: SSAValue, positions: list[int]) -> None:
        big = [p for p in positions if self.extent[p] > 1]
        for p in positions:
            if self.extent[p] == 1:
                self.axis_val[p] = self.const(0)
        if len(big) == 1:
            self.axis_val[big[0]] = flat
            return
        total = _prod(self.extent[p] for p in big)
        for i, p in enumerate(big):
            stride = _prod(self.extent[q] for q in big[i + 1 :])
            name = self.axes[p][0].name_hint or ""
            v = self.divui(flat, stride, name if i == 0 else "")
            if stride * self.extent[p] < total:
                v = self.remui(v, self.extent[p], name)
            self.axis_val[p] = v

    def needs_lane_warp(self) -> bool:
        return any(
            isinstance(op, tile.CombineOp) and self.combine_plan(op)[0] == "warps"
            for op in self.tile.walk()
        )

    # -- ops ------------------------------------------------------------------------------------

    def emit_block(self, block: Block) -> None:
        ops = list(block.ops)
        i = 0
        while i < len(ops):
            op = ops[i]
            if isinstance(op, tile.StageOp):
                group = []
                while i < len(ops) and isinstance(ops[i], tile.StageOp):
                    if ops[i] not in self.done_stages:
                        group.append(ops[i])
                    i += 1
                if group:
                    self.emit_stages(group)
                continue
            if not isinstance(op, (loop.YieldOp, loop.AccumulateOp)):
                self.emit_op(op)
            i += 1

    def emit_op(self, op: Operation) -> None:
        if isinstance(op, loop.ForOp):
            self.emit_for(op)
        elif isinstance(op, tile.StridedForOp):
            self.emit_strided(op)
        elif isinstance(op, tile.CombineOp):
            self.emit_combine(op)
        elif isinstance(op, loop.LoadOp):
            for pt in self.points(self.d(op.result)):
                amap, idx = self.access(op.map.data, op.indices, pt)
                if tile.is_masked(op):  # may leave the buffer: `in ? x[clamped] : 0`
                    v = masking.masked_load(self, self.lookup(op.memref, pt), amap, idx, tile.masked_dims(op))
                else:
                    v = self.emit(K.LoadOp(self.lookup(op.memref, pt), idx, amap)).results[0]
                self.define(op.result, v, pt)
        elif isinstance(op, loop.StoreOp):
            self.emit_store(op)
        elif isinstance(op, tile.AtomicOp):
            self.emit_atomic(op)
        elif isinstance(op, affine.ApplyOp):
            for pt in self.points(self.d(op.result)):
                leaves: list[SSAValue] = []
                e = self.index_expr(op.result, pt, leaves)
                v = self.expr_value(e, leaves)
                if v.owner is not None and isinstance(v.owner, Operation) and not v.name_hint:
                    v.name_hint = op.result.name_hint
                self.define(op.result, v, pt)
        elif isinstance(op, tile.StageOp):
            self.emit_stages([op])
        elif op.dialect_name() in ("arith", "math") and not op.regions:
            for pt in self.points(frozenset().union(*(self.d(r) for r in op.results))):
                mapper = {o: self.lookup(o, pt) for o in op.operands}
                new = op.clone(value_mapper=dict(mapper))
                if isinstance(new, arith.ConstantOp) and self.ip is not self.const_blk:
                    self.const_blk.add_op(new)
                else:
                    self.emit(new)
                for old_r, new_r in zip(op.results, new.results):
                    new_r.name_hint = None
                    self.define(old_r, new_r, pt)
        else:
            self.fail(op, "is not supported inside a tile kernel")

    def emit_store(self, op: loop.StoreOp) -> None:
        deps = self.d(op.value).union(*(self.d(i) for i in op.indices))
        guard_axes = tuple(
            p for p in self.threads if self.extent[p] > 1 and p not in deps | self.exec_deps
        )
        for pt in self.points(deps):
            amap, idx = self.access(op.map.data, op.indices, pt)
            st = K.StoreOp(self.lookup(op.value, pt), self.lookup(op.memref, pt), idx, amap)
            if tile.is_masked(op):  # may leave the buffer: `if (in) store`
                st = K.IfOp(masking.in_bounds(self, op.memref.type, amap, idx, tile.masked_dims(op)),
                            Region(Block([st, K.YieldOp()])))  # fmt: skip
            if guard_axes:
                cond = self.guard(guard_axes)
                self.emit(K.IfOp(cond, Region(Block([st, K.YieldOp()]))))
            else:
                self.emit(st)

    def guard(self, axes: tuple[int, ...]) -> SSAValue:
        """`axis == 0` for each of `axes`, and-ed (computed once, next to the thread indices)."""
        if axes not in self.guards:
            with self.at(self.index_blk):
                big = [p for p in self.threads if self.extent[p] > 1]
                if list(axes) == big:
                    cond = self.cmp(self.tid, 0, "eq", "is_t0")
                else:
                    cond = None
                    for p in axes:
                        c = self.cmp(self.axis_val[p], 0, "eq")
                        cond = c if cond is None else self.emit(arith.AndIOp(cond, c)).results[0]
                    cond.name_hint = "is_" + "_".join(
                        (self.axes[p][0].name_hint or f"t{p}") + "0" for p in axes
                    )
            self.guards[axes] = cond
        return self.guards[axes]

    def emit_atomic(self, op: tile.AtomicOp) -> None:
        kind = op.kind.data
        prev = self.atomic_outs.get(op.memref)
        if prev is not None and prev != kind:
            self.fail(op, "folds one buffer with two different combiners")
        self.atomic_outs[op.memref] = kind
        deps = self.d(op.value).union(*(self.d(i) for i in op.indices))
        guard_axes = tuple(  # once per point of the axes it depends on (as a store)
            p for p in self.threads if self.extent[p] > 1 and p not in deps | self.exec_deps
        )
        for pt in self.points(deps):
            amap, idx = self.access(op.map.data, op.indices, pt)
            at = K.AtomicOp(kind, self.lookup(op.value, pt), self.lookup(op.memref, pt), idx, amap)
            if tile.is_masked(op):  # may leave the buffer: `if (in) atomic`
                at = K.IfOp(masking.in_bounds(self, op.memref.type, amap, idx, tile.masked_dims(op)),
                            Region(Block([at, K.YieldOp()])))  # fmt: skip
            if guard_axes:
                at = K.IfOp(self.guard(guard_axes), Region(Block([at, K.YieldOp()])))
            self.emit(at)

    # loops ------------------------------------------------------------------------------------

    def result_points(self, op: Operation) -> list[tuple[SSAValue, CombineKind, SSAValue, dict]]:
        """(old result, combiner, old accumulated value, cell point) for every new result."""
        last = op.regions[0].block.last_op
        out = []
        if isinstance(last, loop.AccumulateOp):
            for r, kind, v in zip(op.results, last.kinds, last.values):
                for pt in self.points(self.d(r)):
                    out.append((r, kind.data, v, pt))
        return out

    def emit_loop_body(self, op: Operation, body: Block, entries) -> None:
        """Emit `op`'s body into `body` and end it with kernel.accumulate / kernel.yield."""
        with self.at(body):
            self.emit_block(op.regions[0].block)
            if entries:
                self.emit(
                    K.AccumulateOp(
                        [k for _, k, _, _ in entries], [self.lookup(v, pt) for _, _, v, pt in entries]
                    )
                )
            else:
                self.emit(K.YieldOp())

    def inline_body(self, op: Operation, iv_value: SSAValue) -> None:
        """Run a loop body exactly once with its induction variable bound to `iv_value`."""
        entries = self.result_points(op)
        self.bind(op.regions[0].block.args[0], iv_value)
        self.emit_block(op.regions[0].block)
        for r, _, v, pt in entries:
            self.define(r, self.lookup(v, pt), pt)

    def make_for(self, op, lb, ub, step, iv_hint, unroll, setup: Callable[[SSAValue], None]):
        entries = self.result_points(op)
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = iv_hint
        with self.at(body):
            setup(body.args[0])
        self.emit_loop_body(op, body, entries)
        kf = self.emit(
            K.ForOp(lb, ub, step, body, [r.type for r, _, _, _ in entries], unroll)
        )
        for (r, _, _, pt), new in zip(entries, kf.results):
            self.define(r, new, pt)
        return kf

    def emit_for(self, op: loop.ForOp) -> None:
        depth = tile.pipeline_depth(op)
        if depth is not None:
            return self.emit_pipelined(op, depth)
        n = op.extent.data
        if n == 1:
            self.inline_body(op, self.const(0))
            return
        entries = self.result_points(op)
        body = Block(arg_types=[IndexType()])
        iv = body.args[0]
        iv.name_hint = op.iv.name_hint
        self.bind(op.iv, iv)
        self.maxval[iv] = n - 1
        self.loops.append(_Loop(op.iv, iv, n))
        try:
            self.emit_loop_body(op, body, entries)
        finally:
            self.loops.pop()
        unroll = 0 if tile.is_unrolled(op) else None
        kf = self.emit(K.ForOp(0, n, 1, body, [r.type for r, _, _, _ in entries], unroll))
        for (r, _, _, pt), new in zip(entries, kf.results):
            self.define(r, new, pt)

    def emit_strided(self, op: tile.StridedForOp) -> None:
        header = self.cdeps(self.d(op.start))
        free = [p for p in header if p not in self.fixed]
        if free:
            for pt in self.points(frozenset(free)):
                with self.fixing(pt):
                    self.emit_strided(op)
            return
        saved = self.exec_deps
        self.exec_deps = saved | self.d(op.start)
        try:
            start = self.lookup(op.start)
            self.strided(op, start, op.bound.data, op.step.data, tile.is_unrolled(op))
        finally:
            self.exec_deps = saved

    def strided(self, op: Operation, start: SSAValue, bound: int, step: int, unroll: bool):
        """`for (iv = start; iv < bound; iv += step)` over `op`'s body, in its best form."""
        smax = self.maxval.get(start)
        c = _const_of(start)
        if c is not None:
            smax = c
        is_reduce = bool(op.results)
        iv_hint = op.regions[0].block.args[0].name_hint
        old_iv = op.regions[0].block.args[0]
        if smax is not None and smax < bound and bound <= step:
            self.inline_body(op, start)  # every thread runs it exactly once
            self.maxval[start] = smax
            return
        if bound <= step and not is_reduce:
            cond = self.cmp(start, bound, "ult")
            then = Block()
            with self.at(then):
                self.bind(old_iv, start)
                self.emit_block(op.regions[0].block)
                self.emit(K.YieldOp())
            self.emit(K.IfOp(cond, Region(then)))
            return
        exact = smax is not None and smax < step and bound % step == 0
        trips = bound // step
        if exact and unroll and trips <= UNROLL_TRIPS:

            def setup(j: SSAValue) -> None:
                off = self.emit(arith.MuliOp(j, self.const(step))).results[0]
                iv = self.emit(arith.AddiOp(start, off)).results[0]
                iv.name_hint = iv_hint
                self.maxval[iv] = smax + (trips - 1) * step
                self.bind(old_iv, iv)

            self.make_for(op, 0, trips, 1, (iv_hint or "i") + "_j", 0, setup)
            return

        def setup2(iv: SSAValue) -> None:
            if smax is not None:
                self.maxval[iv] = bound - 1
            self.bind(old_iv, iv)

        self.make_for(op, start, bound, step, iv_hint, 0 if unroll else None, setup2)

    def emit_combine(self, op: tile.CombineOp) -> None:
        pts = list(self.points(self.d(op.value)))
        values = [self.lookup(op.value, pt) for pt in pts]
        results = self.combine(op, values)
        for pt, r in zip(pts, results):
            self.define(op.result, r, pt)


def _dce(kfunc: K.KernelFuncOp) -> None:
    """Drop arith/math ops whose results nothing uses (folded index helpers)."""
    changed = True
    while changed:
        changed = False
        for op in list(kfunc.walk()):
            if (
                op.dialect_name() in ("arith", "math")
                and not op.regions
                and all(not r.uses for r in op.results)
            ):
                op.detach()
                op.erase()
                changed = True


def _dynamic_smem(kfunc: K.KernelFuncOp, low: KernelLowering) -> None:
    smem = [op for op in kfunc.walk() if isinstance(op, K.SmemOp)]
    total = sum(op.size_bytes() for op in smem)
    if total <= STATIC_SMEM_LIMIT:
        return
    offset = 0
    for op in smem:
        offset = -(-offset // 16) * 16
        new = K.SmemOp(op.result.type, offset)  # type: ignore[arg-type]
        new.result.name_hint = op.result.name_hint
        op.parent_block().insert_op_before(new, op)  # type: ignore[union-attr]
        op.result.replace_all_uses_with(new.result)
        op.detach()
        op.erase()
        offset += new.size_bytes()
    if offset > MAX_SMEM:
        raise MaterializeError(
            f"materialize: @{low.name}: 'kernel.smem' needs {offset} bytes of shared memory, "
            f"more than the {MAX_SMEM} a block can have"
        )
    kfunc.smem = IntAttr(offset)


def init_kernel(name: str, buffers: dict[SSAValue, tuple[SSAValue, CombineKind]]) -> K.KernelFuncOp:
    """`@<name>_init`: fill each buffer a kernel folds into atomically with its identity."""
    olds = list(buffers)
    blk = Block(arg_types=[b.type for b in olds])
    for new, old in zip(blk.args, olds):
        new.name_hint = old.name_hint
    sizes = [_prod(b.type.get_shape()) for b in olds]  # type: ignore[union-attr]
    n = max(sizes)
    threads = min(256, n)
    blocks = -(-n // threads)
    ops: list[Operation] = []
    c = lambda v: arith.ConstantOp(IntegerAttr(v, IndexType()))  # noqa: E731
    tid, bid = K.ThreadIdOp(K.Dim.X), K.BlockIdOp(K.Dim.X)
    ops += [tid, bid]
    cthreads = c(threads)
    mul = arith.MuliOp(bid.results[0], cthreads.result)
    flat = arith.AddiOp(mul.result, tid.results[0])
    flat.result.name_hint = "flat"
    ops += [cthreads, mul, flat]
    for arg, old, size in zip(blk.args, olds, sizes):
        kind = buffers[old][1]
        t = arg.type
        assert isinstance(t, MemRefType)
        cv = identity_constant(kind, t.element_type)
        ops.append(cv)
        shape = t.get_shape()
        d0 = AffineExpr.dimension(0)
        exprs = []
        for i in range(len(shape)):
            inner = _prod(shape[i + 1 :])
            e = d0 // inner if inner > 1 else d0
            if i > 0:
                e = e % shape[i]
            exprs.append(e)
        amap = AffineMap(1, 0, tuple(exprs))
        store = K.StoreOp(cv.result, arg, [flat.result], amap)
        if size < threads * blocks:
            cond = arith.CmpiOp(flat.result, c(size).result, "ult")
            ops += [cond.rhs.owner, cond]  # type: ignore[list-item]
            ops.append(K.IfOp(cond.result, Region(Block([store, K.YieldOp()]))))
        else:
            ops.append(store)
    for op in ops:
        blk.add_op(op)
    return K.KernelFuncOp(
        name + "_init", [b.type for b in olds], [blocks, 1, 1], [threads, 1, 1], 0, Region(blk)
    )


@dataclass(frozen=True)
class Materialize(ModulePass):
    """Lower each tile.kernel of @main to a kernel.func and a kernel.launch in its place."""

    name = "materialize"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        from dpl.transforms.kernel.materialize_loop import lower_loop_kernel

        for fn in [f for f in op.body.block.ops if isinstance(f, func.FuncOp)]:
            for kop in list(fn.body.walk()):
                if isinstance(kop, tile.KernelOp):
                    low = KernelLowering(kop)
                    kfunc = low.lower()
                    op.body.block.insert_op_before(kfunc, fn)
                    if low.atomic_outs:
                        bufs = {b: (b, k) for b, k in low.atomic_outs.items()}
                        init = init_kernel(low.name, bufs)
                        op.body.block.insert_op_before(init, kfunc)
                        kop.parent_block().insert_op_before(  # type: ignore[union-attr]
                            K.LaunchOp(init.sym_name.data, list(bufs)), kop
                        )
                    launch = K.LaunchOp(low.name, low.old_args)
                    kop.parent_block().insert_op_before(launch, kop)  # type: ignore[union-attr]
                    kop.detach()
                    kop.erase()
                elif isinstance(kop, loop.KernelOp):
                    kfunc = lower_loop_kernel(kop)
                    op.body.block.insert_op_before(kfunc, fn)
                    launch = K.LaunchOp(kop.sym_name.data, [*kop.ins, *kop.outs])
                    kop.parent_block().insert_op_before(launch, kop)  # type: ignore[union-attr]
                    kop.detach()
                    kop.erase()
