"""lower-stages: each `tile.stage` becomes a `kernel.smem` buffer and its fill.

Over the bound tiles of kernel.funcs (after outline-kernels). Each run of consecutive stages
is one group: a barrier first when inside a loop (the previous iteration's reads come before
the refill, unless every stage is double-buffered along the innermost loop behind the fill's
own barrier), one `kernel.smem` each (`[buffers] + slab extents + pad`; allocated once at the
top of the tile when inside a loop), the fills (stage_fills.py: sync, cp.async, TMA), then
`cp_async_commit` + `cp_async_wait 0` for the async ones, an mbarrier wait for the TMA ones,
and a barrier. TMA stages get one mbarrier per slot, set up by thread 0 in the prologue. A
masked stage (`{tile.masked}`, a slab that may leave its source) copies under a bounds guard per
copy and writes zeros otherwise, never by TMA.

A `loop.for {tile.pipeline = D}` (pipeline-k-outer) becomes a `kernel.for` software pipeline:
a prologue fills iterations 0..D-2 of its stages buffered along it; each iteration issues the
fill of iteration k+D-1 (guarded by k+D-1 < K, so the last iterations are the epilogue),
commits, waits until D-1 groups are in flight, barriers, computes on slot k mod N, and barriers
again when a slot could be refilled before every thread has read it. Its other stages are
filled synchronously each iteration.

    %x_smem = tile.stage %x origin [%b, 0] slab [128 at 1] : ... -> memref<128xf32, #tile.smem>
 -> %x_smem = kernel.smem : memref<128xf32, #kernel.smem>
    %x_smem_v = kernel.load %x[%b, %t * 4] vector 4 : memref<4x128xf32>
    kernel.store %x_smem_v, %x_smem[%t * 4] vector 4 : memref<128xf32, #kernel.smem>
    kernel.barrier

Declines nothing (a tile without stages is left as it is). A buffered TMA stage whose buffer
loop is not the innermost loop around it is a one-line error.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerType, MemRefType, ModuleOp, NoneAttr
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import kernel as K
from dpl.dialects import loop, tile
from dpl.transforms.kernel.lowering import bound_tiles, replace_uses
from dpl.transforms.kernel.stage_fills import Loop, StageFills


class StageLowering(StageFills):
    """Lowers the stages of one bound tile."""

    def __init__(self, kfunc: K.KernelFuncOp, tile_op: tile.TileOp):
        super().__init__(kfunc, tile_op)
        self.hoisted: list[Operation] = []

    def run(self) -> None:
        with self.at(self.prologue_end()):
            self.emit_mbarriers()
        self.lower_block(self.tile.body.block)
        if self.hoisted:
            Rewriter.insert_op(self.hoisted, InsertPoint.at_start(self.tile.body.block))

    def lower_block(self, block: Block) -> None:
        ops = list(block.ops)
        i = 0
        while i < len(ops):
            op = ops[i]
            if isinstance(op, tile.StageOp):
                group = []
                while i < len(ops) and isinstance(ops[i], tile.StageOp):
                    group.append(ops[i])
                    i += 1
                with self.at(InsertPoint.before(group[0])):
                    self.emit_stages(group)
                for st in group:
                    Rewriter.erase_op(st)
                continue
            if isinstance(op, loop.ForOp) and tile.pipeline_depth(op) is not None:
                self.emit_pipelined(op, tile.pipeline_depth(op))  # type: ignore[arg-type]
            elif isinstance(op, loop.ForOp) and op.extent.data > 1:
                self.loops.append(Loop(op.iv, op.extent.data))
                self.lower_block(op.body.block)
                self.loops.pop()
            else:
                for region in op.regions:
                    for b in region.blocks:
                        self.lower_block(b)
            i += 1

    def alloc(self, st: tile.StageOp, hoist: bool) -> SSAValue:
        """The stage's `kernel.smem` (`hoist`: allocated once at the top of the tile)."""
        src_t = st.source.type
        assert isinstance(src_t, MemRefType)
        phys = self.stage_shape(st)[3]
        shape = ([st.buffers.data] if st.buffers is not None else []) + phys
        op = K.SmemOp(MemRefType(src_t.element_type, shape, NoneAttr(), K.SMEM))
        op.result.name_hint = st.result.name_hint
        if hoist:
            self.hoisted.append(op)
        else:
            self.emit(op)
        self.smem[st] = op.result
        replace_uses(st.result, op.result)
        return op.result

    def emit_mbarriers(self) -> None:
        """One mbarrier per slot of each TMA stage, initialised by thread 0 before any use."""
        stages = [s for s in self.tile.walk() if isinstance(s, tile.StageOp)]
        stages = [s for s in stages if self.copy_mode(s) == "tma"]
        if not stages:
            return
        inits: list[Operation] = []
        for st in stages:
            n = st.buffers.data if st.buffers is not None else 1
            op = K.SmemOp(MemRefType(IntegerType(64), [n], NoneAttr(), K.SMEM))
            self.mbar[st] = self.named(op, f"{st.result.name_hint or 'stage'}_bar")
            for i in range(n):
                at_slot = AffineMap(0, 0, (AffineExpr.constant(i),))
                inits.append(K.MbarrierInitOp(op.result, [], at_slot, 1))
        if self.tid is not None and self.T > 1:
            cond = self.guard(tuple(self.big))
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
            inner = self.loops[-1].iv
            safe = ends_with_barrier and all(
                st.buffers is not None and st.buffers.data >= 2 and st.buffer_loop is inner
                for st in group
            )
            if not safe:
                self.emit(K.BarrierOp())  # write-after-read: the last iteration's reads first
        for st in group:
            self.alloc(st, hoist=in_loop)
        for st, mode in zip(group, modes):
            self.fill(st, mode, st.buffer_loop, None)
        if "async" in modes:
            self.emit(K.CpAsyncCommitOp())
            self.emit(K.CpAsyncWaitOp(0))
        for st, mode in zip(group, modes):
            if mode == "tma":
                self.tma_wait(st, st.buffer_loop)
        if ends_with_barrier:
            self.emit(K.BarrierOp())

    # -- software pipelining --------------------------------------------------------------------

    def emit_pipelined(self, op: loop.ForOp, D: int) -> None:
        Kext = op.extent.data
        stages = [s for s in op.body.block.ops if isinstance(s, tile.StageOp)]
        deep = [s for s in stages if s.buffers is not None and s.buffers.data >= D]
        rotated = [s for s in deep if s.buffer_loop is op.iv]
        others = [s for s in stages if s not in rotated]
        modes = {s: self.copy_mode(s) for s in stages}
        for s in others:
            if modes[s] == "async":
                modes[s] = "sync"  # a cp.async group of its own would break the wait count
        body = Block(arg_types=[IndexType()])
        k = body.args[0]
        k.name_hint = op.iv.name_hint
        replace_uses(op.iv, k)
        for s in stages:
            self.alloc(s, hoist=True)
        any_async = any(modes[s] == "async" for s in rotated)

        def issue(kv: SSAValue) -> None:
            for s in rotated:
                self.fill(s, modes[s], kv, {k: kv})

        with self.at(InsertPoint.before(op)):
            for j in range(min(D - 1, Kext)):
                issue(self.const(j))
                if any_async:
                    self.emit(K.CpAsyncCommitOp())
        last = op.body.block.last_op
        self.loops.append(Loop(k, Kext))
        with self.at(body):
            first_stage = True
            for inner in list(op.body.block.ops):
                if isinstance(inner, tile.StageOp):
                    if first_stage:
                        first_stage = False
                        self.steady_state(k, Kext, D, stages, rotated, others, modes, issue)
                    Rewriter.erase_op(inner)
                    continue
                if inner is last:
                    continue
                inner.detach()
                self.emit(inner)
            if others or any(s.buffers.data <= D for s in rotated):  # type: ignore[union-attr]
                self.emit(K.BarrierOp())  # a slot refilled next is read this iteration
            if isinstance(last, loop.AccumulateOp):
                self.emit(K.AccumulateOp([kd.data for kd in last.kinds], list(last.values)))
            else:
                self.emit(K.YieldOp())
        self.lower_block(body)
        self.loops.pop()
        unroll = 0 if tile.is_unrolled(op) else None
        kf = K.ForOp(0, Kext, 1, body, [r.type for r in op.results], unroll)
        Rewriter.insert_op(kf, InsertPoint.before(op))
        for old, new in zip(op.results, kf.results):
            new.name_hint = old.name_hint
            replace_uses(old, new)
        Rewriter.erase_op(op)

    def steady_state(self, k, Kext, D, stages, rotated, others, modes, issue) -> None:
        """At the stages of a pipelined iteration: fill the others, issue iteration k+D-1,
        wait until iteration k's fill landed, and barrier."""
        for s in others:
            self.fill(s, modes[s], s.buffer_loop, None)
        kn = self.named(arith.AddiOp(k, self.const(D - 1)), f"{k.name_hint or 'k'}_next")
        then = Block()
        with self.at(then):
            issue(kn)
            self.emit(K.YieldOp())
        self.emit(K.IfOp(self.cmp(kn, Kext, "ult"), Region(then)))
        if any(modes[s] == "async" for s in rotated):
            self.emit(K.CpAsyncCommitOp())
            self.emit(K.CpAsyncWaitOp(D - 1))
        for s in stages:
            if modes[s] == "tma":
                self.tma_wait(s, k if s in rotated else s.buffer_loop)
        self.emit(K.BarrierOp())


@dataclass(frozen=True)
class LowerStages(ModulePass):
    """Lower each tile.stage to a kernel.smem buffer and its fill; pipeline marked loops."""

    name = "lower-stages"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kfunc, t in list(bound_tiles(op)):
            StageLowering(kfunc, t).run()
