"""lower-axes: each bound `tile.tile` gives way to its body, every axis read as its index.

The last step of materialize's lowering of a tile: outline-kernels bound each axis of the tile to
the block/thread index it is (dialects/tile.py, the bound form), and the passes after it lowered
what the tile holds to kernel ops. This pass replaces each axis by its index, moves the body in
place of the tile and erases the tile; then it drops the index arithmetic nothing uses any more
(the helpers the lowering folded into access maps).

    tile.tile (%t : 32 = thread at %t_1, %b : 4 = block at %b_1) thread_id %t_1 {
      kernel.store %v, %y[%b, %t] : memref<4x32xf32>
    }
 -> kernel.store %v, %y[%b_1, %t_1] : memref<4x32xf32>

Declines a kernel.func without a tile. A tile op left in the body (a pass of materialize was
skipped) is a one-line error naming it.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.transforms.kernel.lowering import bound_tiles, drop_dead_arith, fail, replace_uses


@dataclass(frozen=True)
class LowerAxes(ModulePass):
    """Replace each bound tile.tile by its body, its axes by the indices they are bound to."""

    name = "lower-axes"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kfunc, t in list(bound_tiles(op)):
            for inner in t.walk():
                if inner is not t and inner.dialect_name() in ("tile", "loop", "affine"):
                    what = "is left in the tile (the passes of materialize run before lower-axes)"
                    fail(kfunc.sym_name.data, inner, what)
            for axis, index in zip(t.body.block.args, t.bindings):
                replace_uses(axis, index)
            for inner in list(t.body.block.ops):
                inner.detach()
                Rewriter.insert_op(inner, InsertPoint.before(t))
            Rewriter.erase_op(t)
            drop_dead_arith(kfunc)
