"""lower-loops: the loops of each bound tile become `kernel.for`s, `kernel.if`s or straight code.

- `loop.for %i < n` -> `kernel.for %i = 0 to n step 1` (`{tile.unroll}` -> `unroll`); a loop of
  one trip is inlined with `%i = 0`. A reduce loop's `loop.accumulate` becomes
  `kernel.accumulate`.
- `tile.strided_for %i = %s to N step S`, in its best form given the largest value of `%s`
  (known for tile axes, constants and the loops this pass made): every thread runs it exactly
  once (`max s < N <= S`) -> its body with `%i = %s`; at most once (`N <= S`, free) -> a
  `kernel.if %s < N`; exactly `t = N / S` times (`max s < S`, `S` divides `N`) and marked
  `{tile.unroll}` with t <= 64 -> `kernel.for %j = 0 to t step 1 unroll` with
  `%i = %s + %j * S`, so nvcc unrolls it fully; else `kernel.for %i = %s to N step S`.

    %p = tile.strided_for reduce %j = %l to 256 step 16 -> f64 { ... loop.accumulate max %v }
 -> %p = kernel.for %j = %l to 256 step 16 -> f64 { ... kernel.accumulate max %v : f64 }

Declines nothing (a tile without loops is left as it is). The loop bodies are moved, not
lowered: their loads and stores are lower-accesses' job.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import kernel as K
from dpl.dialects import loop, tile
from dpl.transforms.kernel.lowering import TileLowering, bound_tiles, const_of, replace_uses

UNROLL_TRIPS = 64
"""A strided loop every thread runs exactly t times, marked unroll, is rewritten up to this t."""


def kernel_terminator(op: Operation) -> Operation:
    """`loop.accumulate` -> `kernel.accumulate`, `loop.yield` -> `kernel.yield`."""
    if isinstance(op, loop.AccumulateOp):
        return K.AccumulateOp([k.data for k in op.kinds], list(op.values))
    return K.YieldOp()


class LoopLowering(TileLowering):
    """Lowers the loops of one bound tile."""

    def __init__(self, kfunc: K.KernelFuncOp, tile_op: tile.TileOp):
        super().__init__(kfunc, tile_op)
        self.maxval: dict[SSAValue, int] = {
            arg: e - 1 for arg, e, _ in self.axes
        }  # the largest value of an index, where known
        self.made: set[Operation] = set()

    def lower_block(self, block: Block) -> None:
        for op in list(block.ops):
            self.lower_op(op)

    def lower_op(self, op: Operation) -> None:
        if isinstance(op, loop.ForOp):
            self.lower_for(op)
        elif isinstance(op, tile.StridedForOp):
            self.lower_strided(op)
        else:
            if isinstance(op, K.ForOp) and op not in self.made:  # a pipelined K loop
                ub, lb = op.bound("ub"), op.bound("lb")
                if isinstance(ub, int) and isinstance(lb, int) and lb == 0:
                    self.maxval[op.iv] = ub - 1
            for region in op.regions:
                for b in region.blocks:
                    self.lower_block(b)

    def inline(self, op: loop.ForOp | tile.StridedForOp, iv_value: SSAValue) -> None:
        """Run the loop body exactly once, with its index bound to `iv_value`."""
        last = op.body.block.last_op
        replace_uses(op.body.block.args[0], iv_value)
        moved = [o for o in op.body.block.ops if o is not last]
        for o in moved:
            o.detach()
            Rewriter.insert_op(o, InsertPoint.before(op))
        if isinstance(last, loop.AccumulateOp):
            for r, v in zip(op.results, last.values):
                replace_uses(r, v)
        Rewriter.erase_op(op)
        for o in moved:
            self.lower_op(o)

    @staticmethod
    def move_body(op: loop.ForOp | tile.StridedForOp, into: Block) -> None:
        """Move the loop's body into `into`, its terminator made a kernel one."""
        last = op.body.block.last_op
        assert last is not None
        for o in list(op.body.block.ops):
            if o is not last:
                o.detach()
                into.add_op(o)
        into.add_op(kernel_terminator(last))
        Rewriter.erase_op(last)

    def make_for(self, op, lb, ub, step, iv_hint, unroll, setup: Callable[[SSAValue], None]):
        """`kernel.for` over `op`'s body; `setup(new index)` emits what the body starts with."""
        body = Block(arg_types=[IndexType()])
        body.args[0].name_hint = iv_hint
        with self.at(body):
            setup(body.args[0])
        self.move_body(op, body)
        kf = K.ForOp(lb, ub, step, body, [r.type for r in op.results], unroll)
        self.made.add(kf)
        Rewriter.insert_op(kf, InsertPoint.before(op))
        for old, new in zip(op.results, kf.results):
            new.name_hint = old.name_hint
            replace_uses(old, new)
        Rewriter.erase_op(op)
        self.lower_block(body)

    def lower_for(self, op: loop.ForOp) -> None:
        n = op.extent.data
        if n == 1:
            self.inline(op, self.const(0))
            return

        def setup(iv: SSAValue) -> None:
            self.maxval[iv] = n - 1
            replace_uses(op.iv, iv)

        unroll = 0 if tile.is_unrolled(op) else None
        self.make_for(op, 0, n, 1, op.iv.name_hint, unroll, setup)

    def lower_strided(self, op: tile.StridedForOp) -> None:
        """`for (iv = start; iv < bound; iv += step)` over `op`'s body, in its best form."""
        start, bound, step = op.start, op.bound.data, op.step.data
        smax = self.maxval.get(start)
        c = const_of(start)
        if c is not None:
            smax = c
        old_iv = op.iv
        iv_hint = old_iv.name_hint
        if smax is not None and smax < bound and bound <= step:
            self.inline(op, start)  # every thread runs it exactly once
            return
        if bound <= step and not op.is_reduce:
            with self.at(InsertPoint.before(op)):
                cond = self.cmp(start, bound, "ult")
            then = Block()
            replace_uses(old_iv, start)
            self.move_body(op, then)
            Rewriter.insert_op(K.IfOp(cond, Region(then)), InsertPoint.before(op))
            Rewriter.erase_op(op)
            self.lower_block(then)
            return
        exact = smax is not None and smax < step and bound % step == 0
        trips = bound // step
        if exact and tile.is_unrolled(op) and trips <= UNROLL_TRIPS:

            def setup(j: SSAValue) -> None:
                off = self.emit(arith.MuliOp(j, self.const(step))).results[0]
                iv = self.named(arith.AddiOp(start, off), iv_hint or "")
                self.maxval[iv] = smax + (trips - 1) * step
                replace_uses(old_iv, iv)

            self.make_for(op, 0, trips, 1, (iv_hint or "i") + "_j", 0, setup)
            return

        def setup2(iv: SSAValue) -> None:
            if smax is not None:
                self.maxval[iv] = bound - 1
            replace_uses(old_iv, iv)

        unroll = 0 if tile.is_unrolled(op) else None
        self.make_for(op, start, bound, step, iv_hint, unroll, setup2)


@dataclass(frozen=True)
class LowerLoops(ModulePass):
    """Lower the loops of each bound tile to kernel.for, kernel.if or straight-line code."""

    name = "lower-loops"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kfunc, t in list(bound_tiles(op)):
            LoopLowering(kfunc, t).lower_block(t.body.block)
