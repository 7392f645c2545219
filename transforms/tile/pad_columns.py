"""pad-columns: round a column reduction's contiguous axis up to a whole warp of threads.

A reduction over a dim that is not the innermost (a sum over dim 1 of (64, 4099, 1021), softmax
or RMSNorm over the channels of (batch, channels, h, w)) reads along the reduce index with a
stride; the tile's fastest output axis is the contiguous one (`column_axis`):

    tile.tile (%a0 : 64 = thread, %a1 : 1021 = thread) {
      %acc = loop.for reduce %r < 4099 -> f32 { %v = loop.load %x[%a0, %r, %a1] ... }
      loop.store %acc, %y[%a0, %a1]
    }

blockify-launch gives such a tile a warp of threads along the column axis (coalesced reads) and
shares the reduce among a few lanes. For that the column axis is rounded up here to a multiple
of `threads` (32; or, below that, to a power of two) and the accesses that may then leave their
buffer are marked `{tile.masked = [dims]}`; the added columns compute values no store writes:

    tile.tile (%a0 : 64 = thread, %a1 : 1024 = thread) {
      %acc = loop.for reduce %r < 4099 -> f32 { %v = loop.load %x[%a0, %r, %a1] {tile.masked = [2]} }
      loop.store %acc, %y[%a0, %a1] {tile.masked = [1]}
    }

A column axis below the warp that is a power of two and the whole innermost dim of every
access (%a3 of 8 in a sum over dim 1 of (64, 64, 91, 8)) is continued in memory by the axis
indexing the dim before it (`outer_column`: %a2): blockify-launch gives that one the rest of
the warp (32 / 8 = 4 threads, so a warp reads 32 consecutive floats), and it is rounded up here
to a multiple of those threads (91 -> 92) instead.

Declines (logged to `dpl.passes`) a tile with block or cell axes, no top-level reduce loop, or
no top-level loop of `ROW_LOOP_MIN` (32) or more (each thread runs such short loops whole);
one whose top-level loops read along their own index (a row reduction: nothing to do; a load
along it that is the same for every column, the vector of a batched vector-matrix product, does
not count) or read their inputs along different axes; one whose column axis needs no rounding;
or whose stores do not index the column axis past the end of their buffer (a flattened output).
"""

from __future__ import annotations

from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.ir import SSAValue
from xdsl.passes import ModulePass

from dpl.dialects import loop, tile
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, tiles
from dpl.transforms.tile.matmul import ACCESSES, dim_forms, dim_values, kernel_name, merged_forms
from dpl.transforms.tile.padding import grow, past_end, ranges_of

K = tile.AxisKind


ROW_LOOP_MIN = 32
"""The shortest top-level loop that blockify-launch shares among a block's lanes (a row body);
shorter ones run whole in each thread."""


def column_axis(t: tile.TileOp) -> SSAValue | str:
    """The tile axis that the top-level loops of a reduction tile read contiguously (innermost
    index, coefficient 1) while their own index walks a slower dim; or why there is none. A load
    along the loops' own index that does not depend on that axis is the same for every column
    (the vector of a batched vector-matrix product, `x[b, %r] * w[b, %r, %n]`): a warp reads it
    as one broadcast."""
    loops = [o for o in t.body.block.ops if isinstance(o, loop.ForOp)]
    if not any(f.is_reduce for f in loops):
        return "no top-level reduce loop"
    axes = {v for v, _, _ in t.axes}
    found: set[SSAValue] = set()
    along: list[set[SSAValue]] = []  # the tile axes each load along the loops' index uses
    for f in loops:
        ivs = {o.iv for o in f.walk() if isinstance(o, loop.ForOp)}
        for ld in [o for o in f.walk() if isinstance(o, loop.LoadOp) and not tile.is_smem(o.memref)]:
            forms = dim_forms(ld)
            inner = merged_forms(ld)[0][-1] if forms else None  # (merge-columns' pair as one dim)
            if inner is None:
                return "a load with a non-linear innermost index"
            used = {v for d in forms if d is not None for v in d[0]}
            used |= {v for i, d in enumerate(forms) if d is None for v in dim_values(ld, i)}
            if not ivs & used:  # (a collapsed loop reads %r floordiv 64, %r mod 64)
                continue  # read once per row (a statistic), not along the loop
            if not axes & used:
                continue  # the same for every column (a norm's weight per channel)
            if ivs & set(inner[0]):
                along.append(axes & used)
                continue
            cols = [v for v, c in inner[0].items() if v in axes and c == 1]
            if len(cols) != 1:
                return "a load's innermost index is not one tile axis"
            found.add(cols[0])
    if along and (len(found) != 1 or any(found <= used for used in along)):
        return "the loops read along their own index (a row reduction)"
    if len(found) != 1:
        return "the loops read their inputs along different axes" if found else "no load walks the loops"
    return found.pop()


def continuing_axis(t: tile.TileOp, col: SSAValue, extent: int) -> SSAValue | str:
    """The tile axis that continues column axis `col` (of `extent`) in memory: the one each
    access indexing `col` as its whole innermost dim (coefficient 1, at most `extent` elements)
    uses alone, with coefficient 1, in the dim before; or why there is none."""
    found: set[SSAValue] = set()
    axes = {v for v, _, _ in t.axes}
    for op in [o for o in t.walk() if isinstance(o, ACCESSES)]:
        forms, shape = merged_forms(op)
        if not any(f is not None and col in f[0] for f in forms):
            continue
        if len(forms) < 2 or forms[-1] is None or forms[-1][0] != {col: 1} or forms[-1][1] or shape[-1] > extent:
            return f"an access indexes %{col.name_hint or '?'} other than as its whole innermost dim"
        outer = forms[-2]
        if outer is None or any(c != 1 for v, c in outer[0].items() if v in axes) or len(outer[0]) != 1:
            return "an access's dim before the columns is not indexed by one axis"
        found |= set(outer[0])
    if len(found) != 1 or not found <= axes:
        return "the accesses index different axes, or no tile axis, before the columns"
    return found.pop()


def outer_column(t: tile.TileOp, col: SSAValue, extent: int, threads: int) -> tuple[SSAValue, int] | None:
    """The tile axis that continues column axis `col` (of `extent` < `threads`, a power of two)
    in memory (`continuing_axis`), and the threads it takes so that a warp spans `threads`
    consecutive elements: sum over dim 1 of (64, 64, 91, 8): %a2 of 91 continues %a3 of 8 and
    takes 4 threads, so that 4 x 8 threads read 32 consecutive floats; where pad-columns rounded
    `col` up (an innermost dim of 5 on 8 threads, 3 masked) 4 x 8 threads read 20 consecutive
    floats. None if there is none (a load indexing `col` elsewhere, or an innermost dim longer
    than `extent`)."""
    if extent >= threads or extent & (extent - 1):
        return None
    axis = continuing_axis(t, col, extent)
    return None if isinstance(axis, str) else (axis, threads // extent)


def padded_columns(extent: int, threads: int) -> int:
    """A multiple of `threads`, or below it the next power of two."""
    if extent > threads:
        return -(-extent // threads) * threads
    return 1 << (extent - 1).bit_length()


def fresh_column_axis(t: tile.TileOp, what: str) -> SSAValue | str:
    """`column_axis` of a tile fresh from tileify (thread axes only) whose top-level loops a
    block's lanes will share (one of ROW_LOOP_MIN or more); or why pass `what` declines it."""
    if any(k != K.THREAD for _, _, k in t.axes):
        return f"the tile already has block or cell axes (run {what} before them)"
    loops = [o for o in t.body.block.ops if isinstance(o, loop.ForOp)]
    if max((f.extent.data for f in loops), default=0) < ROW_LOOP_MIN:
        return f"no top-level loop of {ROW_LOOP_MIN} or more (each thread runs its own)"
    return column_axis(t)


def pad_columns(t: tile.TileOp, threads: int) -> tuple[bool, str]:
    axis = fresh_column_axis(t, "pad-columns")
    if isinstance(axis, str):
        return False, axis
    extent = next(e for v, e, _ in t.axes if v is axis)
    size = padded_columns(extent, threads)
    name = f"%{axis.name_hint or '?'}"
    outer = outer_column(t, axis, size, threads)
    if size == extent and outer is not None:  # a short column axis: its outer axis takes the rest of the warp
        axis, share = outer
        extent = next(e for v, e, _ in t.axes if v is axis)
        size, name = -(-extent // share) * share, f"outer column axis %{axis.name_hint or '?'}"
        if size == extent:
            return False, f"{name} of {extent} needs no rounding"
    elif size == extent:
        return False, f"column axis {name} of {extent} needs no rounding"
    else:
        name = f"column axis {name}"
    ranges = ranges_of(t)
    stores = [o for o in t.walk() if isinstance(o, (loop.StoreOp, tile.AtomicOp))]
    if not all(past_end(s, axis, extent, ranges) for s in stores):
        return False, f"a store does not index {name} past its buffer"
    _, masked = grow(t, {axis: size})
    return True, f"{name} {extent} -> {size}; {masked} accesses masked"


@dataclass(frozen=True)
class PadColumns(ModulePass):
    """Round a column reduction's contiguous axis up to a warp; mask the accesses past the end."""

    name = "pad-columns"

    threads: int = 32
    """The threads blockify-launch gives the column axis (a warp)."""

    def __post_init__(self):
        check_option(self, "threads", 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        for t in tiles(op):
            where = kernel_name(t)
            done, what = pad_columns(t, self.threads)
            LOG.info("pad-columns: %s%s: %s", "" if done else "declined ", where, what)
