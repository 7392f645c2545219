"""materialize-mma: lower each tensor-core `tile.kernel` (tensorize-matmul's tiles) of @main into a
`kernel.func` on warpgroup MMA (wgmma layout, sm_90a) or warp MMA (mma_sync layout, sm_80+) plus
its `kernel.launch`; `materialize` lowers the rest.

The tile (block axes, the wgmma fragment's threads (wg, w, g, t) and cells (h, j, e), one K-outer
loop holding `mma.stage` A and B and `mma.dot`, and an epilogue per output point) becomes:

    block axes -> kernel.block_id (extent-1 axes: 0; at most three others, the last listed in x)
    threads    -> wg = tid / 128, w = tid / 32 mod 4, g = tid / 4 mod 8, t = tid mod 4
    smem       -> a_hi, b_hi (+ a_lo, b_lo for 3xtf32): [2, rows, 32] f32, #mma.swizzle<128>,
                  dynamic, 1024-byte aligned: two K stages
    registers  -> acc [BN / 2]: the fp32 accumulators (the wgmma accumulator layout); chain
                  [BN / 2]: the fragment the tensor cores accumulate one chain in; ra / rb: the
                  thread's share of the next K step's A and B elements (the stage regions,
                  evaluated early)

    fill(0) ; split-store(0) ; fence.proxy.async ; barrier ; fill(1)
    for ko < KO:                        stage s = ko mod 2
        per chain of P K steps of 8 (mma.dot's promote; 4 / P chains per K step of 32):
            wgmma fence ; lo*hi, hi*lo of each of its steps, then hi*hi of each, on
                          a_*[s, 64 wg, 8 kk], b_*[s, 0, 8 kk] into chain (the first: overwrite)
            wgmma commit
            first chain, if ko + 1 < KO: split-store(1 - s) ; if ko + 2 < KO: fill(ko + 2)
                                          fence.proxy.async
            wgmma wait 0 ; acc += chain
        barrier
    epilogue once per cell (h, j, e) with acc[4 j + 2 h + e] as the loop's result

The tensor cores round every sum into their accumulators toward zero, so one chain over all of K
would lose accuracy linearly in K (see interpreters/tf32.py); the chains of P steps added into
acc by ordinary adds keep 3xTF32 at fp32's accuracy (what mma.dot's promote means). Stage 1 - s
was last read by the chains of ko - 1, which every warpgroup waited for before the barrier that
ends ko - 1, so its stores overlap the first chain of ko; the barrier that ends ko publishes it.

fill(k) evaluates both stage regions for K step k: each thread takes chunks of 4 consecutive K
elements of one row (chunk q = tid + i * threads: row q / 8, K offset 4 (q mod 8); when no load of
the region is contiguous along K, row q mod rows instead, so a warp reads consecutive rows), values
that do not depend on K once per chunk, loads contiguous along K as one float4, the rest per
element, into ra / rb. split-store(s) rounds each to hi = tf32(v), lo = tf32(v - hi) and stores
them as float4s into stage s.

The mma_sync layout (threads (wm, wn, g, t), cells (mi, ni, h, e)) stages raw values the same way
(no split on the way in, no proxy fence); per chain each warp loads its fragments of each step
from the stage, splits them in registers and runs its MI x NI `mma.sync m16n8k8` chains from
zero (small terms, then hi*hi; fragments loaded again for the hi*hi pass of a chain longer than
one step), then adds them into acc (MI NI 4 registers); one barrier per K step of 32.

The epilogue (bias, residual, silu(gate) * acc, split-K's `tile.atomic`, with the kernel's
`{tile.zero_init}` outs filled by an `_init` kernel as materialize does) is emitted per cell, a
value that depends on no cell axis once. Unsupported structure raises a one-line ValueError.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith, func
from xdsl.dialects.builtin import ArrayAttr, Float32Type, FloatAttr, IndexType, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.ir.affine import AffineBinaryOpExpr, AffineBinaryOpKind, AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass

from dpl.dialects import kernel as K
from dpl.dialects import loop, mma, tile
from dpl.dialects.loop import CombineKind
from dpl.transforms.kernel.atomic_init_kernels import init_kernel
from dpl.transforms.loop.count_cost import carry

AK = tile.AxisKind
K_STEP = 32
MAX_SMEM = 227 * 1024


class MmaLoweringError(ValueError):
    """A tensor-core tile materialize-mma cannot lower; the message is one line."""


def is_mma_kernel(kop: tile.KernelOp) -> bool:
    return any(isinstance(op, mma.DotOp) for op in kop.walk())


def _multiple_of(e: AffineExpr, n: int) -> bool:
    if isinstance(e, AffineConstantExpr):
        return e.value % n == 0
    if isinstance(e, AffineBinaryOpExpr):
        if e.kind == AffineBinaryOpKind.Add:
            return _multiple_of(e.lhs, n) and _multiple_of(e.rhs, n)
        if e.kind == AffineBinaryOpKind.Mul:
            return _multiple_of(e.lhs, n) or _multiple_of(e.rhs, n)
    return False


def _uses_dim(e: AffineExpr, d: int) -> bool:
    if isinstance(e, AffineDimExpr):
        return e.position == d
    if isinstance(e, AffineBinaryOpExpr):
        return _uses_dim(e.lhs, d) or _uses_dim(e.rhs, d)
    return False


def _split_add(e: AffineExpr, d: int) -> AffineExpr | None:
    """`e` = rest + dim d (unit coefficient, d nowhere else): `rest`; else None."""
    if isinstance(e, AffineDimExpr) and e.position == d:
        return AffineConstantExpr(0)
    if isinstance(e, AffineBinaryOpExpr) and e.kind == AffineBinaryOpKind.Add:
        for a, b in ((e.lhs, e.rhs), (e.rhs, e.lhs)):
            if isinstance(b, AffineDimExpr) and b.position == d and not _uses_dim(a, d):
                return a
            if not _uses_dim(b, d):
                inner = _split_add(a, d)
                if inner is not None:
                    return inner + b
    return None


class MmaLowering:
    """Builds the `kernel.func` of one wgmma `tile.kernel`."""

    def __init__(self, kop: tile.KernelOp):
        self.kop = kop
        self.name = kop.sym_name.data
        self.tile = kop.tile
        self.old_args = [*kop.ins, *kop.outs]
        self.fblock = Block(arg_types=[a.type for a in self.old_args])
        self.ip = self.fblock
        self.vm: dict[SSAValue, SSAValue] = {}
        self.consts: dict[tuple, SSAValue] = {}
        for new, old in zip(self.fblock.args, self.old_args):
            new.name_hint = old.name_hint
            self.vm[old] = new
        self.atomic_outs: dict[SSAValue, CombineKind] = {}
        self._structure()

    # -- errors and emission --------------------------------------------------------------------

    def fail(self, what: str):
        raise MmaLoweringError(f"materialize-mma: @{self.name}: {what}")

    def emit(self, op: Operation) -> Operation:
        self.ip.add_op(op)
        return op

    def const(self, value: int | float, t: Attribute | None = None) -> SSAValue:
        t = IndexType() if t is None else t
        key = (value, str(t))
        if key not in self.consts:
            attr = IntegerAttr(int(value), t) if isinstance(t, IndexType) else FloatAttr(float(value), t)
            op = arith.ConstantOp(attr)
            if isinstance(t, IndexType):
                op.result.name_hint = f"c{int(value)}" if value >= 0 else f"cm{-int(value)}"
            self.fblock.insert_op_before(op, self.fblock.first_op) if self.fblock.first_op else self.fblock.add_op(op)
            self.consts[key] = op.result
        return self.consts[key]

    def index(self, e: AffineExpr, leaves: Sequence[SSAValue], name: str = "") -> SSAValue:
        """An affine expression over `leaves` as index arithmetic."""
        if isinstance(e, AffineConstantExpr):
            return self.const(e.value)
        if isinstance(e, AffineDimExpr):
            return leaves[e.position]
        assert isinstance(e, AffineBinaryOpExpr)
        lhs, rhs = self.index(e.lhs, leaves), self.index(e.rhs, leaves)
        cls = {
            AffineBinaryOpKind.Add: arith.AddiOp,
            AffineBinaryOpKind.Mul: arith.MuliOp,
            AffineBinaryOpKind.FloorDiv: arith.DivUIOp,
            AffineBinaryOpKind.Mod: arith.RemUIOp,
            AffineBinaryOpKind.CeilDiv: arith.CeilDivUIOp,
        }[e.kind]
        r = self.emit(cls(lhs, rhs)).results[0]
        r.name_hint = name or None
        return r

    def block_of(self, ops_fn) -> Block:
        """A new block filled by `ops_fn()` (emission redirected into it)."""
        blk, saved = Block(), self.ip
        self.ip = blk
        try:
            ops_fn()
        finally:
            self.ip = saved
        return blk

    def if_(self, cond: SSAValue, body) -> None:
        blk = self.block_of(body)
        blk.add_op(K.YieldOp())
        self.emit(K.IfOp(cond, Region(blk)))

    def for_(self, ub: int, body, unroll: bool = False, name: str = "i") -> None:
        blk = Block(arg_types=[IndexType()])
        blk.args[0].name_hint = name
        saved = self.ip
        self.ip = blk
        try:
            body(blk.args[0])
        finally:
            self.ip = saved
        blk.add_op(K.YieldOp())
        self.emit(K.ForOp(0, ub, 1, Region(blk), unroll=0 if unroll else None))

    # -- structure ------------------------------------------------------------------------------

    def _structure(self) -> None:
        t = self.tile
        self.blocks = [(v, e) for v, e, k in t.axes if k == AK.BLOCK]
        self.threads = [(v, e) for v, e, k in t.axes if k == AK.THREAD]
        self.cells = [(v, e) for v, e, k in t.axes if k == AK.CELL]
        loops = [op for op in t.body.block.ops if isinstance(op, loop.ForOp)]
        dots = [op for op in t.walk() if isinstance(op, mma.DotOp)]
        if len(dots) != 1 or len(loops) != 1 or dots[0].parent_op() is not loops[0]:
            self.fail("needs one K loop holding one 'mma.dot'")
        self.kloop, self.dot = loops[0], dots[0]
        self.sync = self.dot.layout.data == mma.Layout.MMA_SYNC
        kops = list(self.kloop.body.block.ops)
        acc = kops[-1]
        if (
            len(kops) != 4
            or not isinstance(acc, loop.AccumulateOp)
            or list(acc.values) != [self.dot.result]
            or {self.dot.a.owner, self.dot.b.owner} != set(kops[:2])
        ):
            self.fail("the K loop must hold the two stages, the mma.dot and its accumulate only")
        self.a_stage, self.b_stage = self.dot.a.owner, self.dot.b.owner
        assert isinstance(self.a_stage, mma.StageOp) and isinstance(self.b_stage, mma.StageOp)
        self.bm, self.bn = self.a_stage.rows, self.b_stage.rows
        if self.a_stage.k != K_STEP:
            self.fail(f"stages must be {K_STEP} wide in K (one 128-byte row), got {self.a_stage.k}")
        self.nt = 1
        for _, e in self.threads:
            self.nt *= e
        self.ko_n = self.kloop.extent.data
        self.precision = self.dot.precision.data
        self.split = 2 if self.precision == mma.Precision.TF32X3 else 1
        self.chain = self.dot.chain  # MMA steps of 8 per accumulation chain (promote)
        self.small, self.large = mma.chain_terms(self.precision)
        # wgmma reads split halves from shared memory; mma.sync reads raw values and splits
        # them in registers
        self.halves = 1 if self.sync else self.split

    def deps(self, v: SSAValue, memo: dict) -> frozenset:
        """The tile axes (thread, cell and block) that `v` depends on."""
        if v in memo:
            return memo[v]
        memo[v] = frozenset()
        if isinstance(v, BlockArgument) and v.block is self.tile.body.block:
            result = frozenset({v})
        elif isinstance(v, BlockArgument):
            result = frozenset()
        else:
            owner = v.owner
            assert isinstance(owner, Operation)
            result = frozenset().union(*(self.deps(o, memo) for inner in owner.walk() for o in inner.operands))
        memo[v] = result
        return result

    # -- op cloning -----------------------------------------------------------------------------

    def clone(self, op: Operation, m: dict[SSAValue, SSAValue]) -> None:
        """Emit `op` (tile level) at kernel level with operands through `m` then `self.vm`."""

        def get(v: SSAValue) -> SSAValue:
            if v in m:
                return m[v]
            if v in self.vm:
                return self.vm[v]
            self.fail(f"a value used before it is lowered ({v.name_hint or v})")

        if isinstance(op, loop.LoadOp):
            new: Operation = K.LoadOp(get(op.memref), [get(i) for i in op.indices], op.map.data)
        elif isinstance(op, loop.StoreOp):
            new = K.StoreOp(get(op.value), get(op.memref), [get(i) for i in op.indices], op.map.data)
        elif isinstance(op, tile.AtomicOp):
            new = K.AtomicOp(op.kind.data, get(op.value), get(op.memref), [get(i) for i in op.indices], op.map.data)
            self.atomic_outs[op.memref] = op.kind.data
        elif isinstance(op, affine.ApplyOp):
            r = self.index(op.map.data.results[0], [get(v) for v in op.mapOperands], op.result.name_hint or "")
            m[op.result] = r
            return
        elif op.dialect_name() in ("arith", "math") and not op.regions:
            new = op.clone_without_regions()
            for i, o in enumerate(op.operands):
                new.operands[i] = get(o)
        else:
            self.fail(f"'{op.name}' is not supported in a tensor-core tile's epilogue or stages")
        self.emit(new)
        for old, r in zip(op.results, new.results):
            r.name_hint = old.name_hint
            m[old] = r

    # -- the kernel -----------------------------------------------------------------------------

    def lower(self) -> K.KernelFuncOp:
        for op in self.kop.body.block.ops:  # uniform values before the tile (constants)
            if op is not self.tile:
                self.clone(op, self.vm)
        self.emit_axes()
        self.emit_buffers()
        memo: dict = {}
        pre = list(itertools.takewhile(lambda o: o is not self.kloop, self.tile.body.block.ops))
        post = list(self.tile.body.block.ops)[len(pre) + 1 :]
        block_axes = {v for v, _ in self.blocks}
        uniform = [op for op in pre if all(self.deps(r, memo) <= block_axes for r in op.results)]
        for op in uniform:
            self.clone(op, self.vm)
        self.emit_mainloop()
        self.emit_epilogue([op for op in pre if op not in uniform] + post, memo)
        kfunc = K.KernelFuncOp(self.name, [a.type for a in self.old_args], self.grid, [self.nt, 1, 1],
                               self.smem_bytes, Region(self.fblock))  # fmt: skip
        _dce(kfunc)
        return kfunc

    def emit_axes(self) -> None:
        self.grid = [1, 1, 1]
        real = [(v, e) for v, e in self.blocks if e > 1]
        for v, e in self.blocks:
            if e == 1:
                self.vm[v] = self.const(0)
        if len(real) > 3 or any(e > 65535 for _, e in real[:-1]):
            self.fail("has more than three block axes (or one too large for grid y/z)")
        for dim, (v, e) in zip((K.Dim.X, K.Dim.Y, K.Dim.Z), reversed(real)):
            op = self.emit(K.BlockIdOp(dim))
            op.results[0].name_hint = v.name_hint
            self.grid["xyz".index(dim.value)] = e
            self.vm[v] = op.results[0]
        tid = self.emit(K.ThreadIdOp(K.Dim.X)).results[0]
        tid.name_hint = "tid"
        self.tid = tid
        d0 = AffineExpr.dimension(0)
        if self.sync:  # (wm, wn, g, t): warp = wm * WN + wn
            wn = self.threads[1][1]
            exprs = [d0 // 32 // wn, d0 // 32 % wn, d0 // 4 % 8, d0 % 4]
        else:  # (wg, w, g, t)
            exprs = [d0 // 128, d0 // 32 % 4, d0 // 4 % 8, d0 % 4]
        for (v, _), e in zip(self.threads, exprs):
            self.vm[v] = self.index(e, [tid], v.name_hint or "")

    def emit_buffers(self) -> None:
        offset = 0
        self.smem: dict[tuple[str, str], SSAValue] = {}
        for half in ("hi", "lo")[: self.halves]:
            for side, rows in (("a", self.bm), ("b", self.bn)):
                t = mma.swizzled_smem_type([2, rows, K_STEP])
                op = self.emit(K.SmemOp(t, offset))
                op.result.name_hint = f"{side}_st" if self.sync else f"{side}_{half}"  # mma.sync: raw
                self.smem[(side, half)] = op.result
                offset += op.size_bytes()
                offset = -(-offset // 1024) * 1024
        offset += 1024  # slack: the printer rounds the pool's start up to 1024 bytes
        if offset > MAX_SMEM:
            self.fail(f"needs {offset} bytes of shared memory, more than the {MAX_SMEM} a block can have")
        self.smem_bytes = offset
        n_acc = self.cells[0][1] * self.cells[1][1] * 4 if self.sync else self.bn // 2
        acc = self.emit(K.AllocaOp(MemRefType(Float32Type(), [n_acc])))
        acc.result.name_hint = "acc"
        self.acc = acc.result
        if not self.sync:  # the fragment the tensor cores accumulate a chain in
            frag = self.emit(K.AllocaOp(MemRefType(Float32Type(), [n_acc])))
            frag.result.name_hint = "chain"
            self.frag = frag.result
        self.chunks = {}
        for side, stage in (("a", self.a_stage), ("b", self.b_stage)):
            n = -(-stage.rows * (K_STEP // 4) // self.nt)
            self.chunks[side] = n
            regs = self.emit(K.AllocaOp(MemRefType(Float32Type(), [4 * n])))
            regs.result.name_hint = f"r{side}"
            self.smem[(side, "regs")] = regs.result
        zero = self.const(0.0, Float32Type())
        self.for_(n_acc, lambda j: self.emit(K.StoreOp(zero, self.acc, [j], AffineMap.identity(1))),
                  unroll=True, name="j")  # fmt: skip

    # -- staging --------------------------------------------------------------------------------

    def _k_contiguous(self, stage: mma.StageOp) -> bool:
        c = stage.body.block.args[1]
        for op in stage.body.block.ops:
            if isinstance(op, loop.LoadOp) and c in op.indices and self._vector_rest(op, c) is not None:
                return True
        return False

    def _vector_rest(self, op: loop.LoadOp, c: SSAValue) -> AffineExpr | None:
        """For a load whose innermost index is rest + c (c nowhere else) with rest a multiple
        of 4 and rows of a multiple of 4: rest; else None."""
        amap = op.map.data
        positions = [i for i, v in enumerate(op.indices) if v is c]
        if len(positions) != 1 or op.memref.type.get_shape()[-1] % 4:  # type: ignore[union-attr]
            return None
        d = positions[0]
        if any(_uses_dim(e, d) for e in amap.results[:-1]):
            return None
        rest = _split_add(amap.results[-1], d)
        return rest if rest is not None and _multiple_of(rest, 4) else None

    def fill(self, side: str, ko: SSAValue) -> None:
        """Evaluate stage `side`'s region for K step `ko` into its registers."""
        stage = self.a_stage if side == "a" else self.b_stage
        rows, n = stage.rows, self.chunks[side]
        regs = self.smem[(side, "regs")]
        k_major = self._k_contiguous(stage)
        d0, d1 = AffineExpr.dimension(0), AffineExpr.dimension(1)

        def body(i: SSAValue) -> None:
            q = self.index(d0 + d1 * self.nt, [self.tid, i], "q")
            r = self.index(d0 // 8 if k_major else d0 % rows, [q], "r")
            c4 = self.index(d0 % 8 if k_major else d0 // rows, [q], "c4")

            def chunk() -> None:
                for lane, v in enumerate(self.region_lanes(stage, r, c4, ko)):
                    self.emit(K.StoreOp(v, regs, [i], AffineMap(1, 0, (d0 * 4 + lane,))))

            if rows * 8 % self.nt:
                self.if_(self.emit(arith.CmpiOp(q, self.const(rows * 8), "ult")).results[0], chunk)
            else:
                chunk()

        self.for_(n, body, unroll=True, name=f"{side}_i")

    def region_lanes(self, stage: mma.StageOp, r: SSAValue, c4: SSAValue, ko: SSAValue) -> list[SSAValue]:
        """The region's value at (r, 4 c4 + l) for l < 4: K-independent values once, loads
        contiguous along K as one float4, the rest per lane."""
        rv, cv = stage.body.block.args
        base = {rv: r, self.kloop.body.block.args[0]: ko}
        c4x4 = self.index(AffineExpr.dimension(0) * 4, [c4], "c")
        lane_c = [c4x4] + [self.index(AffineExpr.dimension(0) + lane, [c4x4]) for lane in range(1, 4)]
        lanes = [dict(base, **{}) for _ in range(4)]
        for m, c in zip(lanes, lane_c):
            m[cv] = c
        memo: dict = {}

        def on_c(v: SSAValue) -> bool:
            if v is cv:
                return True
            if v in memo:
                return memo[v]
            memo[v] = False
            owner = v.owner
            memo[v] = isinstance(owner, Operation) and any(on_c(o) for o in owner.operands)
            return memo[v]

        for op in stage.body.block.ops:
            if isinstance(op, mma.StageYieldOp):
                continue
            if not any(on_c(r_) for r_ in op.results):
                shared = dict(lanes[0])
                self.clone(op, shared)
                for m in lanes:
                    for old in op.results:
                        m[old] = shared[old]
                continue
            if isinstance(op, loop.LoadOp) and self._vector_rest(op, cv) is not None:
                idx = [lanes[0][v] if v in lanes[0] else self.vm[v] for v in op.indices]
                vec = self.emit(K.LoadOp(self.vm[op.memref], idx, op.map.data, vector=4)).results[0]
                vec.name_hint = (op.result.name_hint or "v") + "4"
                for lane, m in enumerate(lanes):
                    ext = self.emit(K.ExtractOp(vec, lane))
                    ext.result.name_hint = op.result.name_hint
                    m[op.result] = ext.result
                continue
            for m in lanes:
                self.clone(op, m)
        return [m[stage.value] if stage.value in m else self.vm[stage.value] for m in lanes]

    def split_store(self, side: str, slot: SSAValue) -> None:
        """Registers of `side` -> tf32 hi (and lo) float4s in stage `slot`."""
        stage = self.a_stage if side == "a" else self.b_stage
        rows, n = stage.rows, self.chunks[side]
        regs = self.smem[(side, "regs")]
        k_major = self._k_contiguous(stage)
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
                # smem[slot, r, 4 c4] with q = tid + i * nt
                r_expr = (d1 + d2 * self.nt) // 8 if k_major else (d1 + d2 * self.nt) % rows
                c_expr = ((d1 + d2 * self.nt) % 8) * 4 if k_major else ((d1 + d2 * self.nt) // rows) * 4
                amap = AffineMap(3, 0, (d0, r_expr, c_expr))
                for half, vs in (("hi", his), ("lo", los)):
                    if not vs:
                        continue
                    pack = self.emit(K.PackOp(vs)).results[0]
                    pack.name_hint = f"{side}_{half}4"
                    self.emit(K.StoreOp(pack, self.smem[(side, half)], [slot, self.tid, i], amap))

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
        self.fill_both(self.const(0))
        self.store_both(self.const(0))
        self.emit(mma.FenceProxyAsyncOp())
        self.emit(K.BarrierOp())
        if n > 1:
            self.fill_both(self.const(1))
        d0 = AffineExpr.dimension(0)

        def body(ko: SSAValue) -> None:
            for c in range(K_STEP // 8 // self.chain):
                self.wgmma_chain(ko, range(c * self.chain, (c + 1) * self.chain))
                if c == 0 and n > 1:  # the next stage's stores overlap the first chain

                    def more() -> None:
                        slot = self.index((d0 + 1) % 2, [ko], "next")
                        self.store_both(slot)
                        if n > 2:
                            ko2 = self.index(d0 + 2, [ko], "ko2")
                            self.if_(self.emit(arith.CmpiOp(ko2, self.const(n), "ult")).results[0],
                                     lambda: self.fill_both(ko2))  # fmt: skip
                        self.emit(mma.FenceProxyAsyncOp())

                    ko1 = self.index(d0 + 1, [ko], "ko1")
                    self.if_(self.emit(arith.CmpiOp(ko1, self.const(n), "ult")).results[0], more)
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
        self.fill_both(self.const(0))
        self.store_both(self.const(0))
        self.emit(K.BarrierOp())
        if n > 1:
            self.fill_both(self.const(1))
        d0 = AffineExpr.dimension(0)

        def body(ko: SSAValue) -> None:
            for c in range(K_STEP // 8 // self.chain):
                self.sync_chain(ko, range(c * self.chain, (c + 1) * self.chain))

            def more() -> None:
                slot = self.index((d0 + 1) % 2, [ko], "next")
                self.store_both(slot)
                if n > 2:
                    ko2 = self.index(d0 + 2, [ko], "ko2")
                    self.if_(self.emit(arith.CmpiOp(ko2, self.const(n), "ult")).results[0],
                             lambda: self.fill_both(ko2))  # fmt: skip
                self.emit(K.BarrierOp())

            if n > 1:
                ko1 = self.index(d0 + 1, [ko], "ko1")
                self.if_(self.emit(arith.CmpiOp(ko1, self.const(n), "ult")).results[0], more)

        self.for_(n, body, name="ko")

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

    # -- the epilogue ---------------------------------------------------------------------------

    def emit_epilogue(self, ops: list[Operation], memo: dict) -> None:
        """Each op once per point of the cell axes it depends on; the K loop's result is the
        accumulator element of the point (wgmma (h, j, e): acc[4 j + 2 h + e]; mma.sync
        (mi, ni, h, e): acc[((mi NI + ni) 2 + h) 2 + e])."""
        cell_vals = [v for v, _ in self.cells]
        extents = [e for _, e in self.cells]
        acc_old = self.kloop.res[0]
        points = list(itertools.product(*(range(e) for e in extents)))
        per_point: dict[tuple, dict] = {p: {v: self.const(x) for v, x in zip(cell_vals, p)} for p in points}
        for p, m in per_point.items():
            if self.sync:  # (mi, ni, h, e): acc[((mi NI + ni) 2 + h) 2 + e]
                mi, ni, h, e = p
                index = ((mi * extents[1] + ni) * 2 + h) * 2 + e
            else:  # (h, j, e): acc[4 j + 2 h + e]
                h, j, e = p
                index = 4 * j + 2 * h + e
            ld = self.emit(K.LoadOp(self.acc, [], AffineMap(0, 0, (AffineConstantExpr(index),))))
            ld.results[0].name_hint = "d"
            m[acc_old] = ld.results[0]
        for op in ops:
            dep = set()
            for r in op.results:
                dep |= self.deps(r, memo)
            for o in op.operands:
                dep |= self.deps(o, memo) | (set(cell_vals) if o is acc_old else set())
            which = [i for i, v in enumerate(cell_vals) if v in dep]
            done: dict[tuple, dict] = {}
            for p, m in per_point.items():
                key = tuple(p[i] for i in which)
                if key not in done:
                    local = dict(m)
                    self.clone(op, local)
                    done[key] = {old: local[old] for old in op.results}
                m.update(done[key])


def _dce(kfunc: K.KernelFuncOp) -> None:
    """Erase scalar ops whose results are unused (lane indices a float4 load made redundant)."""
    changed = True
    while changed:
        changed = False
        for op in list(kfunc.walk()):
            if op.dialect_name() in ("arith", "math") and not op.regions and op.results \
                    and all(not r.uses for r in op.results):  # fmt: skip
                op.detach()
                op.erase()
                changed = True


@dataclass(frozen=True)
class MaterializeMma(ModulePass):
    """Lower tensor-core tile.kernels (mma.dot) of @main to wgmma kernel.funcs and launches."""

    name = "materialize-mma"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in [f for f in op.body.block.ops if isinstance(f, func.FuncOp)]:
            for kop in [k for k in fn.body.walk() if isinstance(k, tile.KernelOp) and is_mma_kernel(k)]:
                low = MmaLowering(kop)
                kfunc = low.lower()
                carry(kop, kfunc)
                op.body.block.insert_op_before(kfunc, fn)
                zero = kop.attributes.get("tile.zero_init")
                if low.atomic_outs or isinstance(zero, ArrayAttr):
                    outs = list(low.atomic_outs) or [kop.outs[a.value.data] for a in zero]  # type: ignore[union-attr]
                    bufs = list(dict.fromkeys(outs))
                    init = init_kernel(low.name, bufs, [low.atomic_outs.get(b, CombineKind.ADD) for b in bufs])
                    op.body.block.insert_op_before(init, kfunc)
                    kop.parent_block().insert_op_before(K.LaunchOp(init.sym_name.data, list(bufs)), kop)  # type: ignore[union-attr]
                kop.parent_block().insert_op_before(K.LaunchOp(low.name, low.old_args), kop)  # type: ignore[union-attr]
                kop.detach()
                kop.erase()
