"""lower-accesses: the loads, stores, atomics and index maps of each bound tile become kernel ops.

- `loop.load` / `loop.store` / `tile.atomic` -> `kernel.load` / `kernel.store` / `kernel.atomic`,
  their index maps folded over kernel values: the `affine.apply`s that compute an index are
  composed into the map, constants inlined, and each tile axis read as the index it is bound to.
- A global store whose value and indices do not depend on some thread axis (nor do the loops and
  conditions around it) is written by the threads at 0 on that axis only: it goes inside
  `kernel.if %is_<axis>0`, the guard computed once at the end of the prologue (`%is_t0` when the
  axes are all the tile's threads).
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
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Block, Operation, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import kernel as K
from dpl.dialects import loop, tile
from dpl.transforms.kernel.lowering import TileLowering, bound_tiles


class AccessLowering(TileLowering):
    """Lowers the accesses of one bound tile."""

    def __init__(self, kfunc: K.KernelFuncOp, tile_op: tile.TileOp):
        super().__init__(kfunc, tile_op)
        self.position = {arg: i for i, (arg, _, _) in enumerate(self.axes)}
        self.deps = {arg: frozenset({i}) for arg, i in self.position.items()}

    def d(self, v: SSAValue) -> frozenset[int]:
        return self.deps.get(v, frozenset())

    def analyze(self, block: Block) -> None:
        """The tile axes each value depends on (a combine's result not on the ones it spans)."""
        for op in block.ops:
            if isinstance(op, K.ForOp):
                head = frozenset().union(*(self.d(o) for o in op.operands))
                self.deps[op.iv] = head
                self.analyze(op.body.block)
                last = op.body.block.last_op
                if isinstance(last, K.AccumulateOp):
                    for r, v in zip(op.results, last.values):
                        self.deps[r] = self.d(v) | head
            elif isinstance(op, tile.CombineOp):
                spanned = {self.position[a] for a in op.axes}
                for r, v in zip(op.res, op.values):
                    self.deps[r] = self.d(v) - spanned
            else:
                dd = frozenset().union(*(self.d(o) for o in op.operands))
                for region in op.regions:
                    for b in region.blocks:
                        self.analyze(b)
                for r in op.results:
                    self.deps[r] = dd

    def around(self, op: Operation) -> frozenset[int]:
        """The axes the loops and conditions around `op` (inside the tile) depend on."""
        out: frozenset[int] = frozenset()
        parent = op.parent_op()
        while parent is not None and parent is not self.tile:
            if isinstance(parent, K.ForOp | K.IfOp):
                out |= frozenset().union(*(self.d(o) for o in parent.operands))
            parent = parent.parent_op()
        return out

    def run(self) -> None:
        self.analyze(self.tile.body.block)
        for op in list(self.tile.walk()):
            if isinstance(op, loop.LoadOp):
                amap, idx = self.access(op.map.data, op.indices)
                new = K.LoadOp(self.value(op.memref), idx, amap)
                Rewriter.replace_op(op, new)
            elif isinstance(op, loop.StoreOp):
                self.lower_store(op)
            elif isinstance(op, tile.AtomicOp):
                amap, idx = self.access(op.map.data, op.indices)
                new = K.AtomicOp(op.kind.data, op.value, self.value(op.memref), idx, amap)
                Rewriter.replace_op(op, new)
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

    def lower_store(self, op: loop.StoreOp) -> None:
        deps = self.d(op.value).union(*(self.d(i) for i in op.indices)) | self.around(op)
        guard_axes = tuple(p for p in self.big if p not in deps)
        amap, idx = self.access(op.map.data, op.indices)
        st = K.StoreOp(op.value, self.value(op.memref), idx, amap)
        if guard_axes:
            guarded = K.IfOp(self.guard(guard_axes), Region(Block([st, K.YieldOp()])))
            Rewriter.replace_op(op, guarded)
        else:
            Rewriter.replace_op(op, st)


@dataclass(frozen=True)
class LowerAccesses(ModulePass):
    """Lower the loads, stores, atomics and index maps of each bound tile to kernel ops."""

    name = "lower-accesses"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kfunc, t in list(bound_tiles(op)):
            AccessLowering(kfunc, t).run()
