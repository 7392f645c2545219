"""tileify: turn each `loop.kernel` into a `tile.kernel` holding one `tile.tile`.

The chain of outer free loops (each level holding exactly one free loop and otherwise only pure
scalar ops and loads) becomes the tile's axes, all `thread` for now (blockify-launch partitions
them later); what the innermost chain loop holds becomes the tile body. Extent-1 loops are
dropped (their index folds to 0) unless every loop has extent 1. Constants of the kernel body stay
in front of the tile; other ops of outer levels move to the front of the tile body (they are pure,
so recomputing them per point keeps meaning).

A scatter's `loop.atomic` becomes a `tile.atomic`, and the kernel is marked
`{tile.zero_init}` for its buffer (it starts at the combiner's identity, as split-K's do).

A kernel with no outer free loop (a full sum to one value) gets a tile of one axis of extent 1
(`%one`), its body the kernel's (blockify-launch then shares its reduce among a block's lanes and
split-reduce spreads it over blocks). The pass never declines: an outer level that holds stores or
other loops beside its free loop ends the chain there, and the rest becomes the tile body.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import Operation
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import loop, tile
from dpl.transforms.loop.nest import inline_unit_loop
from dpl.transforms.tile.common import LOG, atomics_to_tile, fold_constant_indices, index_constant


def _pure(op: Operation) -> bool:
    return not op.regions and not isinstance(op, (loop.StoreOp, loop.AtomicOp, loop.YieldOp))


def inline_unit_loops(kernel: loop.KernelOp) -> None:
    """Inline the extent-1 free loops nested below the chain (a `[.., 1, d]` output dim), so
    the loop that later passes spread over threads is the one with real extent."""
    for f in [o for o in kernel.walk() if isinstance(o, loop.ForOp)]:
        if not f.is_reduce and f.extent.data == 1 and f.parent_op() is not kernel:
            inline_unit_loop(f)


def tileify_kernel(kernel: loop.KernelOp) -> str | None:
    """Rewrite `kernel`; return the reason it was declined, or None."""
    name = kernel.sym_name.data
    chain: list[loop.ForOp] = []
    moved: list[Operation] = []
    inline_unit_loops(kernel)
    kept: list[Operation] = []
    block = kernel.body.block
    while True:
        ops = [op for op in block.ops if not isinstance(op, loop.YieldOp)]
        free = [op for op in ops if isinstance(op, loop.ForOp) and not op.is_reduce]
        others = [op for op in ops if op not in free]
        if len(free) != 1 or not all(_pure(op) for op in others):
            break
        if not chain:
            kept += [op for op in others if isinstance(op, arith.ConstantOp)]
            moved += [op for op in others if not isinstance(op, arith.ConstantOp)]
        else:
            moved += others
        chain.append(free[0])
        block = free[0].body.block
    if not chain:  # one point (a full sum): one axis of extent 1, whose reduce blockify shares
        kept = [op for op in block.ops if isinstance(op, arith.ConstantOp)]
    keep_axes = [f for f in chain if f.extent.data > 1] or chain[-1:]
    new_kernel = tile.KernelOp(name, list(kernel.ins), list(kernel.outs))
    new_tile = tile.TileOp([(f.extent.data, tile.AxisKind.THREAD) for f in keep_axes] or [(1, tile.AxisKind.THREAD)])
    body = new_tile.body.block
    if not keep_axes:
        body.args[0].name_hint = "one"
    for f, arg in zip(keep_axes, body.args):
        arg.name_hint = f.iv.name_hint
        f.iv.replace_all_uses_with(arg)
    for f in chain:
        if f not in keep_axes:
            zero = index_constant(0)
            body.add_op(zero)
            f.iv.replace_all_uses_with(zero.result)
    for op in moved:
        op.detach()
        body.add_op(op)
    for op in list(block.ops):
        if isinstance(op, loop.YieldOp):
            continue
        op.detach()
        body.add_op(op)
    for op in kept:
        op.detach()
        new_kernel.body.block.add_op(op)
    new_kernel.body.block.add_op(new_tile)
    atomics_to_tile(new_kernel)
    fold_constant_indices(body)
    for op in list(body.ops):
        if isinstance(op, arith.ConstantOp) and not op.result.uses:
            op.detach()
            op.erase()
    new_kernel.attributes |= kernel.attributes
    Rewriter.replace_op(kernel, new_kernel, [])
    return None


@dataclass(frozen=True)
class Tileify(ModulePass):
    """Lift each loop kernel's outer free loops into the thread axes of a `tile.tile`."""

    name = "tileify"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            reason = tileify_kernel(kernel)
            if reason is None:
                LOG.info("tileify: @%s tiled", kernel.sym_name.data)
            else:
                LOG.info("tileify: declined %s", reason)
