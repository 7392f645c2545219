"""cooperative-reduce: let the threads of a block share one reduce.

A top-level `loop.for reduce` of a tile body that does not depend on some of the tile's thread
axes is computed identically by all threads along them. Those idle axes (flattened row-major
into one lane index, extent T) share it: the loop becomes `tile.strided_for reduce` from the lane
index with step T, and each result a `tile.combine` across the idle axes (`warp_shuffle` when T
is a multiple of 32 or a power of two below it, else `tree`), whose value every thread sees.
lower-combines shuffles where the idle threads are whole warps or lanes of one warp (16 lanes
per packed row) and falls back to the tree otherwise.

Declines (logged to `dpl.passes`) a reduce that depends on every thread axis of its tile (no
idle threads), whose idle threads number 1 or more than 1024, one in a tile of more than 1024
threads (blockify-launch left it flat: the launch spreads its threads over blocks, and the
idle ones of a reduce need not share one), or one nested inside another loop.
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp
from xdsl.ir import SSAValue
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.rewriter import Rewriter

from dpl.dialects import loop, tile
from dpl.dialects.loop import IterKind
from dpl.transforms.tile.common import LOG, axis_deps, tiles, uses_outside


def share(t: tile.TileOp, f: loop.ForOp) -> str | None:
    deps = axis_deps(t)
    used: set[SSAValue] = set()
    for v in uses_outside(f):
        used |= deps(v)
    idle = [(v, e) for v, e, k in t.axes if k == tile.AxisKind.THREAD and v not in used]
    lanes = 1
    for _, e in idle:
        lanes *= e
    if lanes <= 1:
        return "the reduce depends on every thread axis (no idle threads to share it)"
    if lanes > tile.MAX_BLOCK_THREADS:
        return f"{lanes} idle threads exceed one block"
    threads = 1
    for _, e, k in t.axes:
        threads *= e if k == tile.AxisKind.THREAD else 1
    if threads > tile.MAX_BLOCK_THREADS:  # a flat launch spreads them over blocks
        return f"the tile's {threads} threads are more than one block (a combine stays within its block)"
    block = t.body.block
    if len(idle) == 1:
        start = idle[0][0]
    else:
        expr: AffineExpr = AffineConstantExpr(0)
        for i, (_, e) in enumerate(idle):
            expr = expr * e + AffineDimExpr(i)
        apply = affine.ApplyOp(
            [v for v, _ in idle], AffineMapAttr(AffineMap(len(idle), 0, (expr,)))
        )
        block.insert_op_before(apply, f)
        start = apply.result
    strided = tile.StridedForOp(
        IterKind.REDUCE,
        start,
        f.extent.data,
        lanes,
        f.detach_region(f.body),
        [r.type for r in f.res],
    )
    strided.attributes |= f.attributes
    acc = strided.body.block.last_op
    assert isinstance(acc, loop.AccumulateOp)
    shuffle = lanes % 32 == 0 or lanes & (lanes - 1) == 0
    strategy = tile.CombineStrategy.WARP_SHUFFLE if shuffle else tile.CombineStrategy.TREE
    combines = []
    for old, part, kind in zip(f.res, strided.res, acc.kinds):
        part.name_hint = (old.name_hint or "acc") + "_part"
        combines.append(tile.CombineOp(kind.data, part, [v for v, _ in idle], strategy))
        combines[-1].result.name_hint = old.name_hint
    Rewriter.replace_op(f, [strided, *combines], [c.result for c in combines])
    return None


@dataclass(frozen=True)
class CooperativeReduce(ModulePass):
    """Share each top-level reduce among the thread axes it does not depend on (strided + combine)."""

    name = "cooperative-reduce"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for t in tiles(op):
            kernel = t.parent_op()
            where = f"@{kernel.sym_name.data}" if isinstance(kernel, tile.KernelOp) else "tile"
            for f in [o for o in t.body.block.ops if isinstance(o, loop.ForOp) and o.is_reduce]:
                reason = share(t, f)
                if reason is None:
                    LOG.info("cooperative-reduce: %s: reduce shared by the block", where)
                else:
                    LOG.info("cooperative-reduce: declined %s: %s", where, reason)
