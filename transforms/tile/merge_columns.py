"""merge-columns: run a column reduction's narrow column axis and the axis before it as one.

A reduction over a dim that is not the innermost reads along a column axis (`column_axis`), which
blockify-launch gives a warp of threads after pad-columns rounds it up to a multiple of one (or,
below a warp, to a power of two). A narrow ragged innermost dim wastes most of those threads:
an amax over dim 1 of (71, 79, 128, 5) pads the 5 columns to 8, and RMSNorm over the channels
of (67, 64, 53, 19) pads 19 to 32, idling 13 of 32 lanes. Where the axis before the column axis
indexes the dim before it in memory, in full, in every access that indexes the column axis, the
two run as one axis over both extents, indexed back with floordiv / mod:

    tile.tile (%a0 : 71 = thread, %a1 : 128 = thread, %a2 : 5 = thread) {
      %acc = loop.for reduce %r0 < 79 -> f32 { %in = loop.load %x[%a0, %r0, %a1, %a2] ... }
      loop.store %acc, %y[%a0, %a1, %a2]
    }
 -> tile.tile (%a0 : 71 = thread, %a1a2 : 640 = thread) {
      %acc = loop.for reduce %r0 < 79 -> f32 {
        %in = loop.load %x[%a0, %r0, %a1a2 floordiv 5, %a1a2 mod 5] ...
      }
      loop.store %acc, %y[%a0, %a1a2 floordiv 5, %a1a2 mod 5]
    }

A row-major buffer lays such a pair of dims out as one dim (`matmul.merged_forms`), so a warp of
the new axis reads 32 consecutive floats, and pad-columns rounds 640, not 5. The tile visits the
same points, each once, and every access reads the same element: meaning is kept exactly.

The column axis is merged where padding it alone would idle any of its threads (WASTE_MIN),
the merged axis idles fewer (`pad_columns.padded_columns`: 5 -> 8 idles 3 / 8, 640 none), and
the merged tile keeps FILL_WAVES warps of columns per SM of `sms` (H200, session 23, the 29
sweep programs of seeds 0-48 it changed: amax over dim 1 of 71 x 79 x 128 x 5 0.79 -> 0.99x
eager, amax over dim 0 of 128 x 128 x 487 x 3 0.31 -> 1.06x, softmax over dim 0 of 239 x 16 x
64 x 79 4.1 -> 6.4x; geomean of the 18 it merges 1.20x, none slower).
A one-pass reduction over long rows counts each warp of columns as the blocks split-reduce will
spread its rows over (`split_blocks`: rows // SPLIT_ROWS): amax over dim 0 of 1803 x 1024 x 3
merges its 3 x 1024 columns into 96 warps, which split-reduce spreads over 11 blocks each (H200,
session 26, the 8 sweep programs of seeds 0 and 41-130 it changes: that amax 0.77 -> 1.30x
eager, mean over dim 0 of 1735 x 181 x 5 2.30 -> 2.88x; geomean 2.11 -> 2.39x, none slower).

Declines (logged to `dpl.passes`) what pad-columns declines for its form (`fresh_column_axis`:
block or cell axes, no top-level loop of ROW_LOOP_MIN, no column axis), a column axis that a warp
divides or whose padding idles WASTE_MIN or less (a power of two below a warp: pad-columns'
`outer_column` then gives the axis before it the rest of the warp), an access indexing the column
axis other than as its whole innermost dim or without the axis before it alone indexing the whole
dim before, a merge that would not idle fewer threads, and one that would leave fewer warps of
columns (each counted `split_blocks` times) than FILL_WAVES per SM.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from xdsl.context import Context
from xdsl.dialects import affine
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp
from xdsl.ir import Block, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap
from xdsl.passes import ModulePass

from dpl.dialects import loop, tile
from dpl.dialects.loop import CombineKind
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, rebuild_tile, tiles
from dpl.transforms.tile.matmul import ACCESSES, compose_applies, fold_applies, kernel_name, merged_forms
from dpl.transforms.tile.pad_columns import continuing_axis, fresh_column_axis, padded_columns
from dpl.transforms.tile.split_reduce import stored_result
from dpl.transforms.tile.target import target_sms

K = tile.AxisKind

WASTE_MIN = 0.0
"""The share of a padded column axis's threads that must idle for a merge: any. Session 23 kept
axes idling up to 1/8 unmerged (the division and remainder per access); H200, session 26
(bench/results/session26/call6-wasteab.txt), the 22 sweep programs of seeds 0 and 41-73 that
merging those changes: geomean 2.84 -> 3.12x eager; RMSNorm over the channels of 64 x 32 x 431
x 7 (7 -> 8) 1.57 -> 3.52x, of 97 x 83 x 64 x 95 (95 -> 96) 3.40 -> 3.75x; the slowest, amax over
dim 1 of 64 x 255 x 11 x 439 (439 -> 448), 1.19 -> 1.16x."""

FILL_WAVES = 2
"""The warps of columns (blocks of blockify-launch: a warp of columns beside 8 lanes) a merged
tile must keep per SM. Fewer columns keep their narrow axis: blockify-launch then gives each
column more lanes (a column axis of 16 beside 16 lanes), more threads in all. H200 (session 23):
2 x 704 merged columns, 44 blocks, ran 0.0061 -> 0.0070 ms, 375 x 1280 0.0098 -> 0.0124, and 4968
columns (155 blocks: 1.2 per SM) 0.0043 -> 0.0049; one gain is forgone: softmax over dim 0 of
1493 x 809 x 3 (76 blocks) 0.0305 -> 0.0225."""

SPLIT_ROWS = 128
"""The rows per block where split-reduce later spreads a one-pass reduction's rows over more
blocks: blockify-launch's 8 lanes beside a warp of columns, each keeping split-reduce's
min-trips (16). A merged tile of few warps of columns counts each warp that many times over."""


def split_blocks(t: tile.TileOp) -> int:
    """The blocks split-reduce can later spread each warp of columns' rows over: rows //
    SPLIT_ROWS for a tile that is one top-level reduce loop whose result is only stored
    (scaled, for add: `split_reduce.stored_result`) and nothing else; 1 for any other (softmax,
    a norm)."""
    body = [o for o in t.body.block.ops if isinstance(o, loop.ForOp)]
    if len(body) != 1 or not body[0].is_reduce or len(body[0].results) != 1:
        return 1
    (acc,) = [o for o in body[0].body.block.ops if isinstance(o, loop.AccumulateOp)]
    kind = acc.kinds.data[0].data
    store = stored_result(body[0].results[0], kind, t)
    if kind == CombineKind.MUL or isinstance(store, str):
        return 1
    if any(isinstance(o, loop.StoreOp) and o is not store for o in t.walk()):
        return 1  # the tile writes more than the reduction's result
    return max(1, body[0].extent.data // SPLIT_ROWS)


def _waste(extent: int, threads: int) -> float:
    """The share of the threads of a column axis of `extent`, padded, that idle."""
    return 1 - extent / padded_columns(extent, threads)


def before_column(t: tile.TileOp, col: SSAValue, extent: int) -> SSAValue | str:
    """The tile axis that continues the column axis `col` (of `extent`) in memory
    (`pad_columns.continuing_axis`) where it indexes the whole dim before, from 0, in every
    access that indexes `col` (which indexes all of the innermost); or why there is none."""
    outer = continuing_axis(t, col, extent)
    if isinstance(outer, str):
        return outer
    whole = [next(e for v, e, _ in t.axes if v is outer), extent]
    for op in [o for o in t.walk() if isinstance(o, ACCESSES)]:
        forms, shape = merged_forms(op)
        if any(f is not None and col in f[0] for f in forms) and (
            outer is col or forms[-2] != ({outer: 1}, 0) or shape[-2:] != whole
        ):
            return "an access's dim before the columns is not one whole tile axis"
    return outer


def merge_columns(t: tile.TileOp, threads: int, sms: int) -> tuple[bool, str]:
    """Rewrite `t` as the module docstring says; (whether it did, what or why not)."""
    col = fresh_column_axis(t, "merge-columns")
    if isinstance(col, str):
        return False, col
    extents = {v: e for v, e, _ in t.axes}
    e = extents[col]
    name = f"column axis %{col.name_hint or '?'} of {e}"
    waste = _waste(e, threads)
    if waste <= WASTE_MIN:
        return False, f"{name} idles {waste:.1%} of its threads padded (a merge needs more than {WASTE_MIN:.1%})"
    outer = before_column(t, col, e)
    if isinstance(outer, str):
        return False, outer
    merged = e * extents[outer]
    outer_name = f"%{outer.name_hint or '?'} of {extents[outer]}"
    if _waste(merged, threads) >= waste:
        return False, f"{name} merged with {outer_name} would idle no fewer threads"
    warps = -(-merged // threads) * math.prod(x for v, x, _ in t.axes if v is not col and v is not outer)
    spread = split_blocks(t)
    if warps * spread < FILL_WAVES * sms:
        split = f" (split-reduce: {spread} blocks each)" if spread > 1 else ""
        return False, (f"{name} merged with {outer_name} would leave {warps} warps of columns{split}, fewer "
                       f"than {FILL_WAVES} per SM of {sms} (the narrow columns keep more lanes a column)")
    kept = [v for v, _, _ in t.axes if v is not outer]  # the merged axis takes the column axis's place
    axes = [(merged, K.THREAD, (outer.name_hint or "") + (col.name_hint or "")) if v is col else (x, k, v.name_hint or "")
            for v, x, k in t.axes if v is not outer]  # fmt: skip

    def replacement(block: Block):
        new = block.args[kept.index(col)]
        hi = affine.ApplyOp([new], AffineMapAttr(AffineMap(1, 0, (AffineDimExpr(0) // e,))))
        lo = affine.ApplyOp([new], AffineMapAttr(AffineMap(1, 0, (AffineDimExpr(0) % e,))))
        pick = {outer: hi.result, col: lo.result}
        return [pick[v] if v in pick else block.args[kept.index(v)] for v, _, _ in t.axes], [hi, lo]

    new = rebuild_tile(t, axes, replacement)
    for op in [o for o in new.walk() if isinstance(o, ACCESSES)]:
        if any(isinstance(v.owner, affine.ApplyOp) for v in op.indices):
            compose_applies(op)  # the pair into the access's map, where merged_forms reads it
    fold_applies(new)  # erases the applies left unused
    return True, f"{name} and {outer_name} -> one axis of {merged}"


@dataclass(frozen=True)
class MergeColumns(ModulePass):
    """Run a column reduction's narrow ragged column axis and the axis before it as one axis."""

    name = "merge-columns"

    threads: int = 32
    """The threads blockify-launch gives a column axis (a warp), as pad-columns' option."""
    sms: int | None = None
    """The GPU's multiprocessors (default: the module's target's)."""

    def __post_init__(self):
        check_option(self, "threads", 1)
        check_option(self, "sms", 1)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sms = target_sms(self.sms, op)
        for t in tiles(op):
            where = kernel_name(t)
            done, what = merge_columns(t, self.threads, sms)
            LOG.info("merge-columns: %s%s: %s", "" if done else "declined ", where, what)
