"""outline-kernels: move each `tile.kernel` into a `kernel.func` launched from its place.

The `tile.kernel` in a function becomes a `kernel.launch` of a new `kernel.func` of the same
name (placed before that function), whose arguments are the kernel's ins and outs (a buffer the
kernel takes through a `loop.view` is launched as the view's source, which the func takes as the
view's type; the view goes). The func's launch geometry and block/thread indices come from the
tile's axes:

- `block` axes -> `kernel.block_id` x/y/z (the last listed in x) when there are at most three
  and the y/z ones fit 65535; else one flat x index split by div/mod;
- `thread` axes -> one flat `kernel.thread_id x` split by div/mod (the last listed varies
  fastest); a tile of more than 1024 threads (nothing collective in it) spreads them over extra
  blocks of 256 in a free grid dimension, and only the threads inside the tile run its body.

The tile moves into the func, bound to those indices (the bound `tile.tile` of
dialects/tile.py); the uniform ops before it (constants) go first. The rest of materialize
lowers what is inside the tile, and lower-axes finally replaces each axis by its index.

    tile.kernel @k ins(%x : ...) outs(%y : ...) {
      tile.tile (%t : 32 = thread, %b : 4 = block) { ... }
    }
 -> kernel.func @k(%x: ..., %y: ...) grid [4, 1, 1] block [32, 1, 1] smem 0 {
      %b_1 = kernel.block_id x
      %t_1 = kernel.thread_id x
      tile.tile (%t : 32 = thread at %t_1, %b : 4 = block at %b_1) thread_id %t_1 { ... }
    }
    ... kernel.launch @k(%x, %y) : ...

Declines nothing; a kernel it cannot launch (too many blocks, a collective op in a tile of more
than one block of threads, an op with no kernel-level lowering, a loop outside the tile, a
buffer passed twice, cell axes left) is a one-line error naming the op and the kernel.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine, arith
from xdsl.dialects.builtin import ArrayAttr, IntAttr, ModuleOp
from xdsl.ir import Block, Region, SSAValue
from xdsl.passes import ModulePass
from xdsl.rewriter import InsertPoint, Rewriter

from dpl.dialects import kernel as K
from dpl.dialects import loop, tile
from dpl.dialects.tile import AxisKind
from dpl.transforms.kernel.lowering import Emitter, fail, main_funcs, replace_uses
from dpl.transforms.loop.count_cost import carry

MAX_GRID_X = 2**31 - 1
MAX_GRID_YZ = 65535
VIRTUAL_BLOCK = 256

#: The ops a tile body may hold (besides upstream arith/math scalar ops).
SUPPORTED = (
    loop.ForOp, loop.LoadOp, loop.StoreOp, loop.YieldOp, loop.AccumulateOp, affine.ApplyOp,
    tile.StridedForOp, tile.StageOp, tile.HoldOp, tile.CombineOp, tile.AtomicOp,
)  # fmt: skip


def check_body(name: str, t: tile.TileOp) -> None:
    """Every op of the tile has a kernel-level lowering, and the register tile is unrolled."""
    for op in t.walk():
        if op is t or isinstance(op, SUPPORTED):
            continue
        if op.dialect_name() not in ("arith", "math") or op.regions:
            fail(name, op, "is not supported inside a tile kernel")
    if any(k == AxisKind.CELL for _, _, k in t.axes):
        fail(name, t, "still has cell axes (unroll-cells runs first)")


class Outliner(Emitter):
    """Builds the kernel.func of one tile.kernel."""

    def __init__(self, kop: tile.KernelOp):
        name = kop.sym_name.data
        args = [*kop.ins, *kop.outs]
        if len({loop.view_root(a) for a in args}) != len(args):  # also a buffer and a view of it (the CUDA says __restrict__)
            fail(name, kop, "passes one buffer twice")
        self.kop = kop
        self.old_args = args
        self.old = kop.tile
        self.axes = self.old.axes
        self.extent = {i: e for i, (_, e, _) in enumerate(self.axes)}
        self.threads = [i for i, (_, _, k) in enumerate(self.axes) if k == AxisKind.THREAD]
        self.blocks = [i for i, (_, _, k) in enumerate(self.axes) if k == AxisKind.BLOCK]
        self.T = math.prod(self.extent[i] for i in self.threads)
        self.grid = [1, 1, 1]
        self.block_dims = [max(self.T, 1), 1, 1]
        self.axis_val: dict[int, SSAValue] = {}
        self.tid: SSAValue | None = None
        self.in_tile: SSAValue | None = None
        super().__init__(K.KernelFuncOp(name, [a.type for a in args], [1, 1, 1], [1, 1, 1]))
        for new, old in zip(self.func.args, args):
            new.name_hint = old.name_hint

    def run(self) -> K.KernelFuncOp:
        check_body(self.name, self.old)
        for op in self.kop.body.block.ops:
            if op is not self.old and op.regions:
                self.fail(op, "outside the tile.tile is not supported")
        for new, old in zip(self.func.args, self.old_args):
            old.replace_uses_with_if(new, lambda use: self.old.is_ancestor(use.operation))
        for op in list(self.kop.body.block.ops):
            if op is not self.old:
                op.detach()
                self.emit(op)
        self.emit_blocks()
        self.emit_threads()
        bound = tile.TileOp(
            [(e, k) for _, e, k in self.axes],
            bindings=[self.axis_val[i] for i in range(len(self.axes))],
            thread_index=self.tid,
        )
        for new, (old, _, _) in zip(bound.body.block.args, self.axes):
            new.name_hint = old.name_hint
            replace_uses(old, new)
        for op in list(self.old.body.block.ops):
            op.detach()
            bound.body.block.add_op(op)
        if self.in_tile is None:
            self.emit(bound)
        else:
            self.emit(K.IfOp(self.in_tile, Region(Block([bound, K.YieldOp()]))))
        self.func.grid = ArrayAttr([IntAttr(g) for g in self.grid])
        self.func.block = ArrayAttr([IntAttr(b) for b in self.block_dims])
        return self.func

    def emit_blocks(self) -> None:
        """`block` axes: one grid dimension each (the last listed in x), or one flat x index."""
        total = math.prod(self.extent[p] for p in self.blocks)
        if total > MAX_GRID_X * MAX_GRID_YZ:
            self.fail(self.old, f"has {total} blocks, more than CUDA's grid allows")
        rev = list(reversed(self.blocks))
        fits = len(rev) <= 3 and all(self.extent[p] <= MAX_GRID_YZ for p in rev[1:])
        fits = fits and all(self.extent[p] <= MAX_GRID_X for p in rev[:1])
        self.grid_dims_used = len(rev) if fits else 1
        if fits:
            for i, (dim, p) in enumerate(zip((K.Dim.X, K.Dim.Y, K.Dim.Z), rev)):
                self.grid[i] = self.extent[p]
                self.axis_val[p] = self.named(K.BlockIdOp(dim), self.axes[p][0].name_hint or "")
            return
        self.grid = [total, 1, 1]
        bid = self.named(K.BlockIdOp(K.Dim.X), "bid")
        if total > MAX_GRID_X:  # more blocks than grid x holds: bid = by * gx + bx, guarded
            gy = -(-total // MAX_GRID_X)
            self.grid, self.grid_dims_used = [-(-total // gy), gy, 1], 2
            bid.name_hint = "bid_x"
            by = self.named(K.BlockIdOp(K.Dim.Y), "bid_y")
            row = self.emit(arith.MuliOp(by, self.const(self.grid[0]))).results[0]
            bid = self.named(arith.AddiOp(row, bid), "bid")
            if self.grid[0] * gy > total:
                self.guard(self.cmp(bid, total, "ult", "in_grid"))
        self.split_flat(bid, self.blocks)

    def guard(self, cond: SSAValue) -> None:
        """Run the tile only where `cond` holds too (the padded grid's and block's extra threads)."""
        if self.in_tile is None:
            self.in_tile = cond
        else:
            self.in_tile = self.emit(arith.AndIOp(self.in_tile, cond)).results[0]

    def emit_threads(self) -> None:
        """`thread` axes: one flat x index (virtual beyond 1024 threads), split by div/mod."""
        if not self.threads:
            return
        big = [p for p in self.threads if self.extent[p] > 1]
        name = (self.axes[big[0]][0].name_hint or "") if len(big) == 1 else "tid"
        tid = self.named(K.ThreadIdOp(K.Dim.X), name)
        if self.T > K.MAX_THREADS_PER_BLOCK:
            tid = self.virtual_threads(tid)
        self.tid = tid
        self.split_flat(tid, self.threads)

    def virtual_threads(self, local: SSAValue) -> SSAValue:
        """More threads than a block holds and nothing collective: the thread index is spread
        over blocks of VIRTUAL_BLOCK threads (an extra grid dimension)."""
        for op in self.old.walk():
            if isinstance(op, tile.StageOp | tile.CombineOp):
                self.fail(op, f"needs one block, but the tile has {self.T} threads")
        B = VIRTUAL_BLOCK
        nb = -(-self.T // B)
        self.block_dims = [B, 1, 1]
        free = list(range(self.grid_dims_used, 3))
        if not free or (free[0] > 0 and nb > MAX_GRID_YZ):
            self.fail(self.old, f"has {self.T} threads and no grid dimension left for them")
        dim = (K.Dim.X, K.Dim.Y, K.Dim.Z)[free[0]]
        self.grid[free[0]] = nb
        vb = self.named(K.BlockIdOp(dim), "vblock")
        off = self.emit(arith.MuliOp(vb, self.const(B))).results[0]
        flat = self.named(arith.AddiOp(off, local), local.name_hint or "")
        local.name_hint = "tid_local"
        if self.T % B:
            self.guard(self.cmp(flat, self.T, "ult", "in_tile"))
        return flat

    def split_flat(self, flat: SSAValue, positions: list[int]) -> None:
        """The axes at `positions` from their flat row-major index (the last varies fastest)."""
        big = [p for p in positions if self.extent[p] > 1]
        for p in positions:
            if self.extent[p] == 1:
                self.axis_val[p] = self.const(0)
        if len(big) == 1:
            self.axis_val[big[0]] = flat
            return
        total = math.prod(self.extent[p] for p in big)
        for i, p in enumerate(big):
            stride = math.prod(self.extent[q] for q in big[i + 1 :])
            name = self.axes[p][0].name_hint or ""
            v = self.divui(flat, stride, name if i == 0 else "")
            if stride * self.extent[p] < total:
                v = self.remui(v, self.extent[p], name)
            self.axis_val[p] = v


@dataclass(frozen=True)
class OutlineKernels(ModulePass):
    """Move each tile.kernel into a kernel.func with its launch geometry, launched in its place."""

    name = "outline-kernels"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for fn in main_funcs(op):
            for kop in [k for k in fn.body.walk() if isinstance(k, tile.KernelOp)]:
                outliner = Outliner(kop)
                kfunc = outliner.run()
                carry(kop, kfunc)
                for name in (K.TAIL_OF, K.APART):
                    if name in kop.attributes:
                        kfunc.attributes[name] = kop.attributes[name]
                Rewriter.insert_op(kfunc, InsertPoint.before(fn))
                # a merge-dims view is the kernel's parameter type: the launch passes its source
                args = [loop.view_root(a) for a in outliner.old_args]
                Rewriter.replace_op(kop, K.LaunchOp(kfunc.sym_name.data, args), [])
            for view in [v for v in reversed(fn.body.block.ops) if isinstance(v, loop.ViewOp)]:
                if not view.result.uses:
                    Rewriter.erase_op(view)
