"""blockify-launch: choose the launch shape of each fresh `tile.tile` (all axes `thread`).

Two cases:
- Row body (the tile body holds a top-level `loop.for` of extent >= 32, as a row reduction or a
  norm does): every axis becomes `block` (one row per block) and a new `thread` lane axis of
  `min(block-size, next power of two >= the longest top-level loop)` threads is added first; each
  top-level free `loop.for` becomes `tile.strided_for free` from the lane. Top-level reduce loops
  stay as they are (every lane computes them; cooperative-reduce then shares them out).
- Otherwise (pointwise body): axes are taken from the last (fastest) as `thread` while they fit
  in `block-size`; an axis that does not fit but whose extent the remaining budget divides is
  split into a `block` part and a `thread` part (`a = ab * T + at`); the rest are `block`.

Declines (logged to `dpl.passes`) when the tile already has a `block` axis, a `cell` axis or a
collective op (stage / combine), or when a pointwise tile fits one block as it is.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp
from xdsl.ir import Block
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from dpl.dialects import loop, tile
from dpl.dialects.loop import IterKind
from dpl.transforms.tile.common import LOG, rebuild_tile, tiles

K = tile.AxisKind


def _pow2_at_least(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def blockify(t: tile.TileOp, block_size: int) -> str | None:
    kinds = [k for _, _, k in t.axes]
    if any(k != K.THREAD for k in kinds):
        return "the tile already has block or cell axes"
    if any(isinstance(op, (tile.StageOp, tile.CombineOp)) for op in t.walk()):
        return "the tile already holds a collective op"
    top_loops = [op for op in t.body.block.ops if isinstance(op, loop.ForOp)]
    if top_loops and max(f.extent.data for f in top_loops) >= 32:
        return _rows(t, top_loops, block_size)
    return _pointwise(t, block_size)


def _rows(t: tile.TileOp, top_loops: list[loop.ForOp], block_size: int) -> None:
    lanes = min(block_size, _pow2_at_least(max(f.extent.data for f in top_loops)))
    axes = [(lanes, K.THREAD, "lane")] + [
        (e, K.BLOCK, v.name_hint or "") for v, e, _ in t.axes
    ]
    new = rebuild_tile(t, axes, lambda b: (list(b.args[1:]), []))
    lane = new.body.block.args[0]
    for f in top_loops:
        if f.is_reduce:
            continue
        strided = tile.StridedForOp(
            IterKind.FREE, lane, f.extent.data, lanes, f.detach_region(f.body)
        )
        strided.attributes |= f.attributes
        new.body.block.insert_op_before(strided, f)
        f.detach()
        f.erase()
    return None


def _pointwise(t: tile.TileOp, block_size: int) -> str | None:
    axes = t.axes
    if t.count(K.THREAD) <= block_size:
        return f"{t.count(K.THREAD)} threads fit one block as they are"
    budget = block_size
    plan: list[list[tuple[int, K, str]]] = [[] for _ in axes]
    for i in reversed(range(len(axes))):
        v, e, _ = axes[i]
        name = v.name_hint or f"a{i}"
        if e <= budget:
            plan[i] = [(e, K.THREAD, name)]
            budget //= e
        elif budget > 1 and e % budget == 0:
            plan[i] = [(e // budget, K.BLOCK, name + "_b"), (budget, K.THREAD, name + "_t")]
            budget = 1
        else:
            plan[i] = [(e, K.BLOCK, name)]
    flat = [a for p in plan for a in p]

    def replacement(block: Block):
        values, ops, pos = [], [], 0
        for p in plan:
            if len(p) == 1:
                values.append(block.args[pos])
            else:
                amap = AffineMap(2, 0, (AffineDimExpr(0) * p[1][0] + AffineDimExpr(1),))
                apply = affine.ApplyOp([block.args[pos], block.args[pos + 1]], AffineMapAttr(amap))
                ops.append(apply)
                values.append(apply.result)
            pos += len(p)
        return values, ops

    rebuild_tile(t, flat, replacement)
    return None


@dataclass(frozen=True)
class BlockifyLaunch(ModulePass):
    """Partition each tile's axes into block and thread axes of at most `block-size` threads."""

    name = "blockify-launch"

    block_size: int = 256

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for t in tiles(op):
            kernel = t.parent_op()
            where = f"@{kernel.sym_name.data}" if isinstance(kernel, tile.KernelOp) else "tile"
            reason = blockify(t, self.block_size)
            if reason is None:
                LOG.info("blockify-launch: %s partitioned", where)
            else:
                LOG.info("blockify-launch: declined %s: %s", where, reason)
