"""lower-accesses: the loads, stores, atomics and index maps of each bound tile become kernel ops.

- `loop.load` / `loop.store` / `tile.atomic` -> `kernel.load` / `kernel.store` / `kernel.atomic`,
  their index maps folded over kernel values: the `affine.apply`s that compute an index are
  composed into the map, constants inlined, and each tile axis read as the index it is bound to.
- A global store or atomic whose value and indices do not depend on some thread axis (nor do the
  loops and conditions around it) is done by the threads at 0 on that axis only: it goes inside
  `kernel.if %is_<axis>0`, the guard computed once at the end of the prologue (`%is_t0` when the
  axes are all the tile's threads). (An atomic of a block's combined partial folds it once.)
- `{tile.masked = [dims]}` (pad-matmul's ragged tiles) marks an access whose index may leave its
  buffer along those dims; each is compared with the dim's size (transforms/kernel/masking.py):
  a load reads clamped indices and selects 0 outside (`in ? x[min(i, size - 1)] : 0`), a store
  or atomic runs under `kernel.if %inside`.
- `tile.hold` -> a register array (`kernel.alloca`) filled by an unrolled loop of loads,
  `x_reg[j] = x[.., lane + j * 32]` (masked as the hold is: `in ? x[..] : 0`); its loads read
  the array.
- An `affine.apply` still used (by a loop bound or scalar code) becomes index arithmetic.

    %m = tile.combine max %part across [%l] warp_shuffle : f64
    loop.store %m, %y[%r] : memref<8xf64>
 -> %is_l0 = arith.cmpi eq, %l_1, %c0 : index          // in the prologue
    ...
    kernel.if %is_l0 {
      kernel.store %m, %y[%r] : memref<8xf64>
    }

Runs before lower-combines (a combine's result does not depend on the axes it combines across).
Declines nothing (a tile without accesses is left as it is).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import kernel as K
from dpl.dialects import loop, tile
from dpl.transforms.kernel import masking
from dpl.transforms.kernel.lowering import TileLowering, bound_tiles


class AccessLowering(TileLowering):
    """Lowers the accesses of one bound tile."""

    def run(self) -> None:
        self.deps = tile.axis_deps(self.tile)
        for op in list(self.tile.walk()):
            if isinstance(op, tile.HoldOp):
                self.lower_hold(op)
            elif isinstance(op, loop.LoadOp):
                self.lower_load(op)
            elif isinstance(op, loop.StoreOp | tile.AtomicOp):
                self.lower_write(op)
        applies = [op for op in self.tile.walk() if isinstance(op, affine.ApplyOp)]
        values = []
        for op in applies:  # all expanded before any is replaced: each folds the ones it uses
            with self.at(InsertPoint.before(op)):
                leaves: list[SSAValue] = []
                values.append(self.expr_value(self.index_expr(op.result, leaves), leaves))
        for op, v in zip(applies, values):
            if isinstance(v.owner, Operation) and not v.name_hint:
                v.name_hint = op.result.name_hint
            Rewriter.replace_op(op, [], [v])

    def lower_load(self, op: loop.LoadOp) -> None:
        amap, idx = self.access(op.map.data, op.indices)
        memref = self.value(op.memref)
        if not tile.is_masked(op):
            Rewriter.replace_op(op, K.LoadOp(memref, idx, amap, gather=tile.is_gather(op)))
            return
        with self.at(InsertPoint.before(op)):  # may leave the buffer: `in ? x[clamped] : 0`
            v = masking.masked_load(self, memref, amap, idx, tile.masked_dims(op))
        v.name_hint = op.result.name_hint
        Rewriter.replace_op(op, [], [v])

    def lower_hold(self, op: tile.HoldOp) -> None:
        """A register array filled with the thread's elements (0 outside along its masked dims)."""
        amap, idx = self.access(op.map.data, op.indices)
        memref = self.value(op.source)
        t = op.result.type
        assert isinstance(t, MemRefType)
        with self.at(InsertPoint.before(op)):
            regs = self.named(K.AllocaOp(MemRefType(t.element_type, t.get_shape())), op.result.name_hint or "")
            j = AffineExpr.dimension(len(idx))
            at = op.held_dim
            row = AffineMap(len(idx) + 1, 0, tuple(e + j * op.step.data if d == at else e
                                                   for d, e in enumerate(amap.results)))  # fmt: skip

            def fill(jv: SSAValue) -> None:
                if tile.is_masked(op):
                    v = masking.masked_load(self, memref, row, [*idx, jv], tile.masked_dims(op))
                else:
                    v = self.emit(K.LoadOp(memref, [*idx, jv], row)).results[0]
                self.store(v, regs, [jv], AffineExpr.dimension(0))

            self.for_(op.count, fill, unroll=True, name="j")
        op.result.replace_all_uses_with(regs)
        Rewriter.erase_op(op)

    def lower_write(self, op: loop.StoreOp | tile.AtomicOp) -> None:
        """A store or an atomic, done by the threads at 0 on the thread axes it does not depend
        on, and only inside the buffer along its masked dims."""
        deps = tile.write_axes(self.tile, self.deps, op)
        guard_axes = tuple(p for p in self.big if p not in deps)
        amap, idx = self.access(op.map.data, op.indices)
        memref = self.value(op.memref)
        if isinstance(op, loop.StoreOp):
            new: Operation = K.StoreOp(op.value, memref, idx, amap)
        else:
            new = K.AtomicOp(op.kind.data, op.value, memref, idx, amap)
        if tile.is_masked(op):  # may leave the buffer: `if (in) store`
            with self.at(InsertPoint.before(op)):
                inside = masking.in_bounds(self, memref.type, amap, idx, tile.masked_dims(op))
            new = K.IfOp(inside, Region(Block([new, K.YieldOp()])))
        if guard_axes:
            new = K.IfOp(self.guard(guard_axes), Region(Block([new, K.YieldOp()])))
        Rewriter.replace_op(op, new)


@dataclass(frozen=True)
class LowerAccesses(ModulePass):
    """Lower the loads, stores, atomics and index maps of each bound tile to kernel ops."""

    name = "lower-accesses"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kfunc, t in list(bound_tiles(op)):
            AccessLowering(kfunc, t).run()
