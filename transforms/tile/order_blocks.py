"""order-blocks: run one after another the blocks that read the same tile of a large broadcast input.

outline-kernels launches a tile's block axes with the last one varying fastest (blockIdx.x). A
pointwise tile that reads a large input along some of its block axes only (a split LayerNorm's
normalize kernel reads its weight and bias over (64, 256, 256), 16 MB each, once per row of a
batch of 16) runs every block of one batch row before the next, so between two reads of a
weight tile it streams a whole row in and out: past the L2, the weights come from DRAM 16 times.
This pass moves the block axes that those inputs leave out to the end of the block axes, so the
blocks reading one weight tile run together and the tile comes from DRAM once:

    tile.tile (%a0 : 16 = block, %a1 : 64 = block, %a2_b : 64 = block, %a2_t : 4 = thread, ...)
 -> tile.tile (%a1 : 64 = block, %a2_b : 64 = block, %a0 : 16 = block, %a2_t : 4 = thread, ...)

The axes of a tile are parallel: the same points run, each computing what it did, so meaning is
kept. H200 (session 30, bench/results/session30): that LayerNorm took 320 us with its weight and
bias and 208 without them (torch.compile 314 and 201); over (291, 179, 16), 3.3 MB each, the two
differed by 1 %: `min-bytes` (16 MB) lies between.

The inputs counted are loads of global buffers that do not depend on every block axis, grouped
by the block axes they leave out; the group of most bytes (each buffer counted once) is moved.
Declines (logged to `dpl.passes`) a tile of fewer than two block axes, one whose largest group
moves fewer than `min-bytes` bytes, and one where that group's axes are already the last.
"""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import MemRefType, ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from dpl.dialects import loop, tile
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, axis_deps, rebuild_tile
from dpl.transforms.tile.matmul import for_each_tile


def _broadcast_groups(t: tile.TileOp, blocks: list[SSAValue]) -> dict[frozenset, dict[SSAValue, int]]:
    """Per set of block axes left out, the global buffers loaded without them and their bytes."""
    deps = axis_deps(t)
    groups: dict[frozenset, dict[SSAValue, int]] = defaultdict(dict)
    for op in t.walk():
        if not isinstance(op, loop.LoadOp) or tile.is_smem(op.memref):
            continue
        used = set().union(*(deps(v) for v in op.indices)) if op.indices else set()
        missing = frozenset(b for b in blocks if b not in used)
        ty = op.memref.type
        if missing and isinstance(ty, MemRefType):
            groups[missing][op.memref] = math.prod(ty.get_shape()) * ty.element_type.bitwidth // 8
    return groups


def order_blocks(t: tile.TileOp, min_bytes: int) -> str | None:
    """Rewrite `t` as the module docstring says; None if done, else why not."""
    blocks = [v for v, _ in t.axes_of_kind(tile.AxisKind.BLOCK)]
    if len(blocks) < 2:
        return f"{len(blocks)} block axes"
    groups = _broadcast_groups(t, blocks)
    if not groups:
        return "every input read depends on every block axis"
    missing, buffers = max(groups.items(), key=lambda g: sum(g[1].values()))
    nbytes = sum(buffers.values())
    if nbytes < min_bytes:
        return f"its broadcast inputs move {nbytes} bytes, fewer than min-bytes = {min_bytes}"
    order = [b for b in blocks if b not in missing] + [b for b in blocks if b in missing]
    if order == blocks:
        return "the axes its broadcast inputs leave out are already the last"
    slots = iter(order)
    info = {v: (e, k) for v, e, k in t.axes}
    new_args = [next(slots) if k == tile.AxisKind.BLOCK else v for v, _, k in t.axes]  # block axes permuted in place
    spec = [(*info[a], a.name_hint or "") for a in new_args]

    def replacement(block):
        return [block.args[new_args.index(v)] for v, _, _ in t.axes], []

    rebuild_tile(t, spec, replacement)
    return None


@dataclass(frozen=True)
class OrderBlocks(ModulePass):
    """Make the blocks that read the same tile of a large broadcast input run together."""

    name = "order-blocks"

    min_bytes: int = 16 * 1024 * 1024
    """The fewest bytes the broadcast inputs of a tile must move for it to be reordered: smaller
    ones stay in the L2 whatever the order."""

    def __post_init__(self):
        check_option(self, "min_bytes", 0)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for where, reason in for_each_tile(op, lambda t: order_blocks(t, self.min_bytes)):
            if reason is None:
                LOG.info("order-blocks: %s: the blocks sharing its broadcast inputs run together", where)
            else:
                LOG.info("order-blocks: declined %s: %s", where, reason)
