"""blockify-launch: choose the launch shape of each fresh `tile.tile` (all axes `thread`).

Three cases:
- Matmul (see `dpl.transforms.tile.matmul`; register-tile may already have added cell axes and
  split-matmul-k a block axis): the
  fastest thread axis of M and of N each keeps T = min(extent, 16) threads (16 = the largest power
  of two whose square fits `block-size`; for an extent above 16, the largest power of two <= 16
  dividing it, so a ragged M or N gets a smaller block tile instead of being declined) and the
  rest of it becomes a `block` axis (`a = a_b * T + a_t`); every other thread axis (batch) becomes
  `block`. With 4 x 4 cells this is the 64 x 64 block tile of 16 x 16 threads. The K reduce stays
  a sequential loop per thread.
- Row body (the tile body holds a top-level `loop.for` of extent >= 32, as a row reduction or a
  norm does): every axis becomes `block` (one row per block) and a new `thread` lane axis of
  `min(block-size, next power of two >= the longest top-level loop)` threads is added first; each
  top-level free `loop.for` becomes `tile.strided_for free` from the lane. Top-level reduce loops
  stay as they are (every lane computes them; cooperative-reduce then shares them out).
  With `row-trips` R (the row pipeline's: 12), such a block-per-row tile instead takes the fewest
  lanes, a power of two from ROW_LANES_MIN (128) to 1024, that pass over its longest loop in at
  most R trips (a row of 1117: 128 lanes, 9 trips; 2999: 256; 4096: 512), whatever
  `block-size` is: hold-rows then keeps each lane's trips of the row in registers, and more,
  smaller blocks stay resident than with 256 lanes on every row.
  A column reduction (the loops walk a slower dim than an output axis, `pad_columns.column_axis`:
  a sum over dim 1 of (B, R, C)) keeps a warp of threads on that axis (`c = c_b * 32 + c_t`, or
  all of it when it is a power of two below 32; pad-columns rounds it so; then the axis that
  continues it in memory, `pad_columns.outer_column`, takes the rest of the warp where its extent
  is a multiple of it: `a2 = a2_b * 4 + a2_t` beside 8 threads of a3 in a sum over dim 1 of
  (64, 64, 91 -> 92, 8)), so a warp reads 32 consecutive elements, and the lanes take the rest of
  the block (256 / 32 = 8). A one-pass column reduction (one top-level loop) on a warp of
  columns takes fewer lanes where its columns are many (`column_lanes`: the fewest that fill
  every SM twice; 1 for a sum over dim 1 of (512, 37, 2117)), and the block's other warps go
  along the column axis or the axis before it (`_wider_columns`). A column norm or softmax (a
  reduce, then more passes over the column) takes the lanes that let hold-rows keep its column
  in registers: 2 or 4 where they fill half the GPU and the block's other warps go along the
  column axis (`column_norm_lanes`: 64 channels on 2 lanes, 32 trips), and 16 or 32 (blocks of
  512 or 1024 threads) for a column longer than 8 lanes hold (`column_wide_lanes`: 1023
  channels on 32 lanes, 32 trips).
  Short rows (the longest top-level loop at most `PACK_ROW_MAX` = 768, so a lane takes at most
  24 elements per pass; the loops flat, not a row reduction over a column axis) that are many
  (a block per row would fill every SM of `sms` with `SM_THREADS` threads: 1056 rows on an
  H100; fewer rows keep a block each, whose 256 lanes shorten each row's latency) are packed
  instead: a warp per row, or 16 lanes where those pass over the row in fewer lane slots
  (`row_lanes`: a row of 41 takes 16 lanes, 3 passes, not a warp's 2 passes with 23 of 64 slots
  idle; rows of 32 or fewer take 8 lanes, or 2 or 4 where each lane then holds 2 to 4 elements
  in fewer slots and the rows are many enough to fill the GPU twice: 3 million rows of 5 take
  2; an f32 row of 8 or 16 takes the 2 or 4 lanes that move its output a float4 a lane), the
  lane axis the fastest, and `block-size / lanes` rows per block along the fastest
  row axis (`a = a_b * 8 + a_t`; that axis rounded up to a multiple of the rows per block, the
  accesses past its end masked; where that rounding would add more than 1 / FLAT_ROWS_WASTE,
  all the row axes first run as one, `row floordiv 640, (row floordiv 5) mod 128, row mod 5`).
  Each row's reduce is then warp shuffles alone (within the row's lanes), with no barrier and
  no block of 256 threads idling on 301 elements (LayerNorm over 301, RMSNorm over 359: one
  block per row left most lanes without work). Rows shorter
  than a top-level loop of ROW_LOOP_MIN are packed so too, from PACK_ROW_MIN, where the op
  passes over each row more than once (softmax over 21, LayerNorm over 24); otherwise they run
  whole in each thread, as a pointwise body.
- A one-pass reduction of rows of ROW_LOOP_MIN to PACK_ROW_MAX whose loads along the reduce
  loop read along the fastest tile axis in their innermost dim, or not at all (a depthwise
  convolution's 7 x 7 window: neighbouring outputs read neighbouring elements; its weight is
  the same for all of them), and whose rows fill every SM with SM_THREADS threads, runs each
  row whole in a thread, as a pointwise body (`_window_rows`): lanes sharing such a row each
  took two of its 49 taps, then five shuffles. H200 (2026-11-30, session 33, bench/results/
  session33/tools/ab33w.py, lanes -> whole, us): depthwise 7x7 over 8 x 96 x 56 x 56 333 ->
  52 (eager 82), over 4 x 384 x 14 x 14 44 -> 11, 9x9 over 4 x 64 x 64 x 64 142 -> 32, a
  ConvNeXt block 424 -> 179 (eager 297). A column reduction keeps `_rows`' column warp.
- Otherwise (pointwise body): axes are taken from the last (fastest) as `thread` while they fit
  in `block-size`; an axis that does not fit is split into a `block` part and a `thread` part
  (`a = ab * T + at`) of T = gcd(extent, remaining budget) threads, if that is the whole budget or
  at least a warp (4736 over 256 threads: 37 blocks of 128, and the next axis takes the other 2),
  and the budget left goes on to the next axis; the rest are `block`. Where that would leave
  the block part-filled or the fastest axis without threads (sizes the block does not divide:
  4099 x 8191, 64 x 4100; a warp walking a slower axis reads uncoalesced), the tile is left as
  it is: its thread axes, flattened row-major, are more than a block holds, and materialize
  spreads them over blocks of 256 threads, the last one part-filled (a guard).

Declines (logged to `dpl.passes`) when the tile already has a `block` or `cell` axis (a matmul:
when its M / N threads already fit and nothing else is a thread), or a collective op (stage /
combine), or when a pointwise tile fits one block as it is, or its sizes are not divided as
above.
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
from xdsl.rewriter import Rewriter

from dpl.dialects import loop, tile
from dpl.dialects.loop import IterKind
from dpl.transforms.options import check_option
from dpl.transforms.tile.common import LOG, delinearize, rebuild_tile, tiles
from dpl.transforms.tile.hold_rows import HoldRows, float4_row_loop
from dpl.transforms.tile.matmul import ACCESSES, MatmulInfo, compose_applies, dim_values, fold_applies, matmul_info
from dpl.transforms.tunable import tunable
from dpl.transforms.tile.pad_columns import ROW_LOOP_MIN, column_axis, outer_column
from dpl.transforms.tile.padding import grow, past_end, ranges_of
from dpl.transforms.tile.target import SM_THREADS, target_sms

WARP = 32
#: The longest row packed a warp per row (24 elements per lane per pass). On the H100
#: (2026-11-24, bench/rows_ab.py, a block of 256 lanes per row -> a warp per row, ms): RMSNorm
#: 11877 x 583 0.0353 -> 0.0307, softmax 32768 x 520 0.0714 -> 0.0614, sum 16384 x 700 0.0200 ->
#: 0.0185, LayerNorm 4096 x 768 0.0092 -> 0.0091; past 768 a row's block was faster: RMSNorm
#: 2048 x 896 0.0062 -> 0.0068, softmax 8192 x 1000 0.0273 -> 0.0347, LayerNorm 16384 x 1024
#: 0.0488 -> 0.0764.
PACK_ROW_MAX = 24 * WARP
#: The shortest row packed (8 lanes); shorter rows run whole in each thread. Rows of
#: PACK_ROW_MIN..ROW_LOOP_MIN - 1 are packed only where they are many (as longer rows) and the
#: op passes over each row more than once (`_short_rows`). On the H100 (2026-11-24,
#: bench/rows_ab.py short, a thread per row -> packed, ms): softmax 57024 x 21 0.0220 -> 0.0060,
#: LayerNorm 65536 x 24 0.0091 -> 0.0051, RMSNorm 77777 x 9 0.0108 -> 0.0056, softmax 4096 x 7
#: 0.0028 -> 0.0020, softmax 100003 x 12 0.0059 -> 0.0087; one-pass reductions ran slower packed:
#: sum 1048576 x 16 0.0372 -> 0.0490, amax 210000 x 31 0.0141 -> 0.0226, mean 262144 x 8 0.0050
#: -> 0.0071, sum 500000 x 5 0.0052 -> 0.0127.
PACK_ROW_MIN = 4
#: A one-pass column reduction takes the fewest lanes whose threads fill every SM this many
#: times over (`column_lanes`). H200 (2026-11-29, session 22, bench/results/session22/tools/
#: colab22.py; x eager, always 8 lanes -> 1 wave -> 2 waves): sum over dim 1 of (512, 37, 2117)
#: 0.66 -> 1.10 -> 1.10, (2048, 32, 512) 0.64 -> 1.08 -> 1.08, mean over dim 1 of (512, 32, 768)
#: 0.66 -> 1.08 -> 1.09; amax over dim 1 of (64, 255, 11, 439) 1.14 -> 0.78 -> 1.18 (1 lane over
#: 255 rows); geomean over 19 programs 1.015 -> 1.090 -> 1.119.
COLUMN_FILL_WAVES = 2
#: A column norm or softmax (a reduce, then more passes over the same column) takes the fewest
#: lanes, 2 or more, whose trips over the column hold-rows keeps in registers, where those
#: lanes' threads fill every SM COLUMN_NORM_FILL times over (`column_norm_lanes`); else a
#: block's 8. H200 (2026-11-30, session 27, bench/results/session27/tools/ab27.py col, 8 lanes
#: -> held, us): softmax over dim 1 of 379 x 55 x 227 21.9 -> 12.9 (2 lanes), dim 2 of
#: 37 x 64 x 57 x 64 32.4 -> 21.0, RMSNorm over the 55 channels of 64 x 55 x 64 x 128 78.8 ->
#: 60.7, the 128 of 59 x 128 x 145 x 15 52.9 -> 45.3 (4 lanes); slower: softmax over dim 0 of
#: 64 x 347 x 17 x 197 249 -> 282, RMSNorm 32 x 128 x 19 x 345 81 -> 92; 1 lane (no lanes to
#: share the reduce, so nothing held) ran 32 channels 15-30 % slower; geomean over 30 programs
#: 1.085x (fill 1/2 and 1/4 alike, fill 1 1.058x). On 27 held-out programs (call 2, ab27v.py)
#: 1.038x: all 5 of both calls slower (0.74-0.89x: RMSNorm 101 x 64 x 127 x 59 118 -> 160 us)
#: had a block of only one warp along the column axis (32 consecutive elements a row: the
#: column extent / 32 odd, the widening on the axis before it or nowhere), all with 64 or 128
#: 0.99-1.70x; so the fewer lanes are taken only where the block's threads along the column
#: axis are at least COLUMN_NORM_RUN.
COLUMN_NORM_FILL = 0.5
COLUMN_NORM_RUN = 2 * 32
#: A column norm or softmax longer than a block's 8 lanes hold (256 channels) takes up to this
#: many lanes (blocks of up to 1024 threads) where a power of two of them holds the column
#: (`column_wide_lanes`). H200 (2026-11-30, session 27, bench/results/session27/tools/ab27w.py
#: wide, fused up to 1024 channels, 8 lanes -> the rule, us): softmax over dim 1 of
#: 16 x 1023 x 1025 104 -> 58 (32 lanes; torch.compile 86), of 128 x 384 x 2048 379 -> 199 (16),
#: RMSNorm over the 432 channels of 17 x 432 x 64 x 256 432 -> 279; all 21 held 1.3-2.4x.
#: hold-rows holds such a long column from 16 trips (`long-column-trips`), so every column of
#: 257-1024 channels is held on 16 or 32 lanes.
COLUMN_WIDE_LANES = 32
#: Packed rows take fewer lanes than a warp where that wastes fewer lane slots by more than this
#: factor (row_lanes).
ROW_SLOTS_SLACK = 1.1
#: Rows up to this long take 8 lanes (at most four elements a lane, loads in flight together),
#: not 16 or a warp at the same lane slots: a block then holds more rows and no lane idles the
#: whole pass. H100 (2026-11-24, session 6, bench/rows_ab.py short and the sweep; 16 -> 8 lanes,
#: ms): softmax 256x9x193 x 9 0.0336 -> 0.0226, RMSNorm 77777 x 9 0.0055 -> 0.0047, softmax
#: 100003 x 12 0.0101 -> 0.0070; rows of 7, 21 and 24 keep their lanes (unchanged). Session 8
#: (.gpu/abcases.py, 16 -> 32; a warp -> 8 lanes): softmax 64x128x5 x 29 0.0103 -> 0.0061,
#: LayerNorm 81x8x128 x 32 0.0107 -> 0.0072; rows of 41 and 45 (16 lanes) unchanged. Longer rows
#: take 16 lanes or a warp, never 8 (more than four elements a lane). Session 14
#: (bench/results/session14/tools/lanes.py --long, 8 lanes where their slots were fewest ->
#: 16 or a warp, us): softmax 64x64x29 x 53 25.3 -> 22.8 (a warp), 200000 x 37 25.6 -> 24.3 (16),
#: 30000 x 200 17.7 -> 16.8 (a warp, with 8 lanes out of the slots' reckoning).
EIGHT_LANE_ROW_MAX = 32
#: Rows of at most EIGHT_LANE_ROW_MAX take 2 or 4 lanes instead of 8 where each lane then passes
#: over the row two to SHORT_ROW_PASSES times in fewer (or as few) lane slots, and the rows'
#: threads still fill every SM FILL_WAVES times over (`row_lanes`): 8 lanes on a row of 5 leave
#: each thread one element or none, too little in flight. H100 (2026-11-25, session 14,
#: bench/results/session14/tools/lanes.py and abmoved.py, 8 lanes -> the rule's, us): softmax
#: 64x128x384 x 5 101.1 -> 55.7 (2 lanes), 320x3x277 x 5 10.1 -> 6.6 (4; 2 lanes do not fill
#: twice: 7.0), 256x9x193 x 9 18.0 -> 15.7 (4; 2 lanes, 5 passes: 25.2), LayerNorm 64x89x37 x 5
#: 8.2 -> 5.6; kept at 8: RMSNorm 77777 x 9 4.3 (4 lanes, not filling twice: 5.6), softmax
#: 2000000 x 13 87.6 (4 lanes, the same 16 slots: 101.7), LayerNorm 1000000 x 17 53.2 (4 lanes,
#: 5 passes: 49.8), softmax 100003 x 12 5.4, RMSNorm 17x320x32 x 8 5.7 (a row of 8 lanes exactly,
#: one pass with no lane idle; 4 lanes: 6.0).
SHORT_ROW_PASSES = 4
FILL_WAVES = 2
#: Packed rows run as one axis where rounding the fastest row axis up to a block's rows adds
#: more than 1 / FLAT_ROWS_WASTE of it (`_packed_rows`). H100 (2026-11-24, session 8,
#: .gpu/abcases.py on the sweep's programs, ms): 5.7-31% added rows, flattened: LayerNorm
#: 1216 x 181 x 16 0.0176 -> 0.0161, softmax 256x9x193 x 9 0.0227 -> 0.0188, 1157x17 x 64
#: 0.0058 -> 0.0052, 32x64x11 x 128 0.0092 -> 0.0080; 0.2-1.7% added: LayerNorm 64x409 x 64x8
#: 0.0484 -> 0.0513, the others (softmax 1213x1597 x 64, RMSNorm 271x1073 x 387, ...) within 1%.
FLAT_ROWS_WASTE = 32
#: The fewest lanes `row-trips` gives a row of its own block. H200 (2026-11-29, session 17,
#: bench/results/session17/tools/rows_ab.py, rows held in registers, 256 lanes -> 128, us):
#: softmax 102208 x 1117 266 -> 243, logsumexp 50000 x 1000 78 -> 59, softmax 2048 x 1025 6.8 ->
#: 6.1, 20000 x 1537 67 -> 64; 64 lanes were not tried (a row of 768 or less is packed).
ROW_LANES_MIN = 128

K = tile.AxisKind


def _pow2_at_least(n: int) -> int:
    p = 1
    while p < n:
        p *= 2
    return p


def blockify(t: tile.TileOp, block_size: int, sms: int, row_trips: int = 0) -> str | None:
    kinds = [k for _, _, k in t.axes]
    if any(isinstance(op, (tile.StageOp, tile.CombineOp)) for op in t.walk()):
        return "the tile already holds a collective op"
    info = matmul_info(t)
    if info is not None:
        return _matmul(t, info, block_size)
    if any(k != K.THREAD for k in kinds):
        return "the tile already has block or cell axes"
    top_loops = [op for op in t.body.block.ops if isinstance(op, loop.ForOp)]
    longest = max((f.extent.data for f in top_loops), default=0)
    if longest >= ROW_LOOP_MIN and _window_rows(t, top_loops, longest, sms):
        return _pointwise(t, block_size)
    if longest >= ROW_LOOP_MIN:
        return _rows(t, top_loops, longest, block_size, sms, row_trips)
    if longest >= PACK_ROW_MIN and _short_rows(t, top_loops) and _many_rows(t, block_size, sms) \
            and _packed_rows(t, top_loops, longest, block_size, sms):  # fmt: skip
        return None
    return _pointwise(t, block_size)


def _matmul(t: tile.TileOp, info: MatmulInfo, block_size: int) -> str | None:
    per_axis = 1
    while (per_axis * 2) ** 2 <= block_size:
        per_axis *= 2
    mn = set()
    for axes in (info.m_axes, info.n_axes):
        found = [v for v, _, k in t.axes if k == K.THREAD and v in axes]
        if found:
            mn.add(found[-1])
    plan: list[list[tuple[int, K, str]]] = []
    for i, (v, e, k) in enumerate(t.axes):
        name = v.name_hint or f"a{i}"
        if k != K.THREAD:
            plan.append([(e, k, name)])
        elif v not in mn:
            plan.append([(e, K.BLOCK, name)])
        elif e <= per_axis:
            plan.append([(e, K.THREAD, name)])
        else:
            threads = math.gcd(e, per_axis)
            if threads == 1:
                plan.append([(e, K.BLOCK, name)])
            else:
                plan.append([(e // threads, K.BLOCK, name + "_b"), (threads, K.THREAD, name + "_t")])
    if all(len(p) == 1 and p[0][1] == k for p, (_, _, k) in zip(plan, t.axes)):
        return "the matmul tile is already partitioned"
    new = _apply_plan(t, plan)
    fold_applies(new)
    return None


def _apply_plan(t: tile.TileOp, plan: list[list[tuple[int, K, str]]]) -> tile.TileOp:
    """Rebuild `t` with each old axis replaced by its plan (one axis, or block x thread parts)."""
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

    return rebuild_tile(t, flat, replacement)


def _column_threads(t: tile.TileOp, sms: int) -> dict[SSAValue, int]:
    """The column axis of a column reduction (`pad_columns.column_axis`) and the threads it
    gets: a warp, or all of it below a warp (its extent a power of two), then with the rest of
    the warp on the axis that continues it in memory (`pad_columns.outer_column`) where that
    axis's extent is a multiple of them and the blocks left still number `sms` or more (H200,
    session 21: channel RMSNorms of 2 x 193 x 64 x 11 and 8 x 256 x 40 x 7 on 64 and 80 blocks
    ran 1.4x and 1.6x slower than with the column alone on the warp, while 376 to 2272 blocks
    ran 1.2x to 2.6x faster); {} for a row reduction or a column extent neither divides
    (pad-columns did not run)."""
    col = column_axis(t)
    if isinstance(col, str):
        return {}
    e = next(e for v, e, _ in t.axes if v is col)
    if e % WARP == 0:
        return {col: WARP}
    if e < WARP and e & (e - 1) == 0:
        outer = outer_column(t, col, e, WARP)
        if outer is not None:
            axis, share = outer
            extent = next(x for v, x, _ in t.axes if v is axis)
            blocks = math.prod(x for v, x, _ in t.axes if v is not col) // share
            if extent % share == 0 and blocks >= sms:
                return {axis: share, col: e}
        return {col: e}
    return {}


def column_lanes(outputs: int, most: int, sms: int) -> int:
    """The lanes that share each output's reduce in a one-pass column reduction of `outputs`
    columns: the fewest, a power of two up to `most`, whose `outputs * lanes` threads fill every
    SM of `sms` COLUMN_FILL_WAVES times over (SM_THREADS each); `most` where none do. A sum over
    dim 1 of (512, 37, 2117) (1.1 million columns) takes 1 lane, each thread loading its whole
    column; 64 x 1024 columns of 4099 rows keep 8 lanes."""
    lanes = 1
    while lanes < most and outputs * lanes < COLUMN_FILL_WAVES * sms * SM_THREADS:
        lanes *= 2
    return lanes


def _held_lanes(column: int, lanes: int, most: int, fewest: int) -> int | None:
    """The fewest lanes, a power of two from `lanes` up to `most`, that pass over a column of
    `column` elements in at most hold-rows' `max-trips`, where those trips are at least `fewest`
    (hold-rows then keeps the column in registers); else None."""
    while lanes < most and lanes * HoldRows.max_trips < column:
        lanes *= 2
    return lanes if fewest <= -(-column // lanes) <= HoldRows.max_trips else None


def column_norm_lanes(column: int, outputs: int, most: int, sms: int) -> int:
    """The lanes that share each column of a column norm or softmax (a reduce, then more passes
    over it) of `outputs` columns of `column` elements: the fewest, a power of two from 2 up to
    `most`, that pass over the column in at most hold-rows' `max-trips` (32), where those trips
    are at least its `column-trips` (24: the column is held in registers, read once) and
    `outputs * lanes` threads fill every SM COLUMN_NORM_FILL times over; else `most` (a
    column of 32, 80 or 300 channels). `_rows` keeps `most` too where the block's other warps
    would not go along the column axis (COLUMN_NORM_RUN)."""
    lanes = _held_lanes(column, 2, most, HoldRows.column_trips)
    return lanes if lanes and outputs * lanes >= COLUMN_NORM_FILL * sms * SM_THREADS else most


def column_wide_lanes(column: int, most: int) -> int:
    """The lanes of a column norm of `column` elements longer than `most` lanes hold: the fewest
    power of two up to COLUMN_WIDE_LANES that passes over it in at most hold-rows' `max-trips`,
    where that is at least its `long-column-trips` (the column held); else `most`."""
    return _held_lanes(column, most, COLUMN_WIDE_LANES, HoldRows.long_column_trips) or most


def _wider_columns(t: tile.TileOp, threads: dict[SSAValue, int], extra: int) -> dict[SSAValue, int]:
    """`threads` (a warp on the column axis) with `extra` times the threads, so that the fewer
    lanes of `column_lanes` still make a block of the same size: more warps along the column axis
    where its extent allows, then threads of the axes before it in the tile (each warp still
    reads 32 consecutive elements of one row: a sum over dim 1 of (512, 37, 2144 padded) takes 8
    threads of the 512 beside the warp of columns); an axis takes the largest power of two that
    divides its extent and what is left of `extra`."""
    (col, cols), = threads.items()
    out = dict(threads)
    last = next(i for i, (v, _, _) in enumerate(t.axes) if v is col)
    for v, e, _ in reversed(t.axes[: last + 1]):
        e //= cols if v is col else 1
        share = math.gcd(e & -e, extra)
        if share > 1:
            out[v] = out.get(v, 1) * share
            extra //= share
    return out


def _short_rows(t: tile.TileOp, top_loops: list[loop.ForOp]) -> bool:
    """Short rows worth packing: a row reduction (a top-level reduce loop; not a column
    reduction, whose threads read along a column axis while each loops over a slower dim) that
    passes over the row more than once (softmax, a norm: a thread per row waits for each pass's
    statistic before the next; a one-pass sum keeps all of its row's loads in flight)."""
    return (len(top_loops) > 1 and any(f.is_reduce for f in top_loops)
            and not isinstance(column_axis(t), SSAValue))  # fmt: skip


def _window_rows(t: tile.TileOp, top_loops: list[loop.ForOp], longest: int, sms: int) -> bool:
    """Rows that each thread runs whole, as a pointwise body: a one-pass reduction (one top-level
    loop, a reduce) of at most PACK_ROW_MAX whose rows fill every SM with SM_THREADS threads,
    where each load along the loop that the fastest tile axis indexes reads along that axis in
    its innermost dim (a convolution's window: neighbouring threads read neighbouring elements;
    lanes sharing each row would each take a few taps, then combine by shuffles)."""
    if len(top_loops) != 1 or not top_loops[0].is_reduce or longest > PACK_ROW_MAX:
        return False
    if isinstance(column_axis(t), SSAValue):
        return False  # a column reduction: `_rows` gives its column axis the warp
    if math.prod(e for _, e, _ in t.axes) < sms * SM_THREADS:
        return False
    fastest = t.axes[-1][0]
    ivs = {o.iv for o in top_loops[0].walk() if isinstance(o, loop.ForOp)}

    def dims(ld: loop.LoadOp) -> list[set[SSAValue]]:  # the values each dim's index uses
        return [dim_values(ld, d) for d in range(len(ld.map.data.results))]

    reads = [dims(o) for o in top_loops[0].walk() if isinstance(o, loop.LoadOp) and not tile.is_smem(o.memref)]
    along = [ds for ds in reads if ivs & set().union(*ds)]
    return any(fastest in ds[-1] for ds in along) and all(
        fastest in ds[-1] or fastest not in set().union(*ds) for ds in along)


def _many_rows(t: tile.TileOp, block_size: int, sms: int) -> bool:
    """Rows enough for a block each to fill every SM with SM_THREADS threads."""
    return math.prod(e for _, e, _ in t.axes) >= sms * (SM_THREADS // block_size)


def row_trip_lanes(longest: int, row_trips: int) -> int:
    """The lanes of a row of its own block under `row-trips`: the fewest, a power of two from
    ROW_LANES_MIN to 1024 (and no more than the row's own power of two), that pass over a loop
    of `longest` in at most `row_trips` trips."""
    lanes = max(ROW_LANES_MIN, _pow2_at_least(-(-longest // row_trips)))
    return min(lanes, 1024, _pow2_at_least(longest))


def _rows(t: tile.TileOp, top_loops: list[loop.ForOp], longest: int, block_size: int, sms: int,
          row_trips: int = 0) -> None:  # fmt: skip
    threads = _column_threads(t, sms)
    if not threads and _many_rows(t, block_size, sms) and _packed_rows(t, top_loops, longest, block_size, sms):
        return None
    if row_trips and not threads:
        lanes = row_trip_lanes(longest, row_trips)
    else:
        # a column warp is whole even where block-size asks for fewer threads
        lanes = max(1, min(block_size // math.prod(threads.values()), _pow2_at_least(longest)))
        outputs = math.prod(e for _, e, _ in t.axes)
        warp = list(threads.values()) == [WARP]  # a warp of columns, the axis's whole or a part
        if warp and len(top_loops) == 1 and block_size >= WARP:
            lanes = column_lanes(outputs, lanes, sms)
            threads = _wider_columns(t, threads, block_size // (lanes * WARP))
        elif warp and len(top_loops) > 1 and longest > lanes * HoldRows.max_trips:
            lanes = column_wide_lanes(longest, lanes)
        elif warp and len(top_loops) > 1 and block_size >= WARP:
            few = column_norm_lanes(longest, outputs, lanes, sms)
            wider = _wider_columns(t, threads, block_size // (few * WARP))
            if wider[next(iter(threads))] >= COLUMN_NORM_RUN:
                lanes, threads = few, wider
    axes = [(lanes, K.THREAD, "lane")]
    for i, (v, e, _) in enumerate(t.axes):
        name = v.name_hint or f"a{i}"
        cols = threads.get(v)
        if cols is None:
            axes.append((e, K.BLOCK, name))
        elif e > cols:
            axes += [(e // cols, K.BLOCK, name + "_b"), (cols, K.THREAD, name + "_t")]
        else:
            axes.append((e, K.THREAD, name))

    def replacement(block: Block):
        values, ops, pos = [], [], 1
        for v, e, _ in t.axes:
            cols = threads.get(v)
            if cols is not None and e > cols:
                amap = AffineMap(2, 0, (AffineDimExpr(0) * cols + AffineDimExpr(1),))
                apply = affine.ApplyOp([block.args[pos], block.args[pos + 1]], AffineMapAttr(amap))
                apply.result.name_hint = v.name_hint
                ops.append(apply)
                values.append(apply.result)
                pos += 2
            else:
                values.append(block.args[pos])
                pos += 1
        return values, ops

    new = rebuild_tile(t, axes, replacement)
    fold_applies(new)
    _stride_free_loops(top_loops, new.body.block.args[0], lanes)
    return None


def _packed_rows(t: tile.TileOp, top_loops: list[loop.ForOp], longest: int, block_size: int, sms: int) -> bool:
    """Pack short rows `row_lanes` lanes per row, `block_size / lanes` rows per block along the
    fastest row axis (rounded up to a multiple of them, the accesses past its end masked); False
    (the tile untouched) where the rows are too long, a loop holds loops, the fastest row axis
    has fewer than 2 rows, or a store does not index it past its buffer (a mask could not guard
    it). Where rounding the fastest row axis up to the rows a block holds adds more than
    1 / FLAT_ROWS_WASTE of it (LayerNorm over (181, 16) of (1216, 181, 16): 32 rows a block
    along 181 run 192), all the row axes run as one (`_flat_rows`, then only the last block
    part-filled), if the rows are a multiple of a block's or every store indexes the outermost
    axis past its buffer (as it then is past the last row). `longest`: the longest of
    `top_loops`."""
    if longest > PACK_ROW_MAX or block_size < 2 * WARP:
        return False
    if any(isinstance(o, loop.ForOp) for f in top_loops for o in f.body.block.ops):
        return False
    free = [f for f in top_loops if not f.is_reduce]
    float4 = [lanes for lanes in (2, 4, 8)
              if free and all(float4_row_loop(f, f.extent.data, lanes) for f in free)]  # fmt: skip
    lanes = row_lanes(longest, math.prod(e for _, e, _ in t.axes), sms, float4)
    per_block = block_size // lanes
    stores = [o for o in t.walk() if isinstance(o, (loop.StoreOp, tile.AtomicOp))]
    ranges = ranges_of(t)
    (outer, outer_e, _), (v, e, _) = t.axes[0], t.axes[-1]
    rounded, n = -(-e // per_block) * per_block, math.prod(x for _, x, _ in t.axes)
    flat = (rounded - e) * FLAT_ROWS_WASTE > rounded and len(t.axes) > 1 and n >= 2 and (
        n % per_block == 0 or all(past_end(s, outer, outer_e, ranges) for s in stores)
    )
    if flat:
        t = _flat_rows(t)
        v, e, _ = t.axes[-1]
    rows = min(per_block, _pow2_at_least(e))
    if rows < 2:
        return False
    size = -(-e // rows) * rows
    if size != e:
        if not flat and not all(past_end(s, v, e, ranges) for s in stores):
            return False
        t, _ = grow(t, {v: size})
    names = [w.name_hint or f"a{i}" for i, (w, _, _) in enumerate(t.axes)]
    axes = [(x, K.BLOCK, n) for (_, x, _), n in zip(t.axes[:-1], names)]
    axes += [(size // rows, K.BLOCK, names[-1] + "_b"), (rows, K.THREAD, names[-1] + "_t"), (lanes, K.THREAD, "lane")]

    def replacement(block: Block):
        amap = AffineMap(2, 0, (AffineDimExpr(0) * rows + AffineDimExpr(1),))
        apply = affine.ApplyOp([block.args[-3], block.args[-2]], AffineMapAttr(amap))
        apply.result.name_hint = names[-1]
        return [*block.args[:-3], apply.result], [apply]

    new = rebuild_tile(t, axes, replacement)
    fold_applies(new)
    _stride_free_loops(top_loops, new.body.block.args[-1], lanes)
    return True


def _flat_rows(t: tile.TileOp) -> tile.TileOp:
    """`t` with its axes as one axis `row` over all its points, each old axis its row-major
    index (`row floordiv 640`, `(row floordiv 5) mod 128`, `row mod 5` for (64, 128, 5)): the
    same points, each once."""
    extents = [e for _, e, _ in t.axes]

    def replacement(block: Block):
        ops = [affine.ApplyOp([block.args[0]], AffineMapAttr(AffineMap(1, 0, (x,))))
               for x in delinearize(AffineDimExpr(0), extents)]  # fmt: skip
        for op, (v, _, _) in zip(ops, t.axes):
            op.result.name_hint = v.name_hint
        return [op.result for op in ops], list(ops)

    new = rebuild_tile(t, [(math.prod(extents), K.THREAD, "row")], replacement)
    for op in [o for o in new.walk() if isinstance(o, ACCESSES)]:
        compose_applies(op)  # into the maps: fold_applies keeps a non-linear apply as a value
    fold_applies(new)
    return new


def row_lanes(n: int, rows: int, sms: int, float4: list[int] | tuple[int, ...] = ()) -> int:
    """The lanes each of `rows` packed rows of `n` elements takes, on `sms` multiprocessors.

    Up to EIGHT_LANE_ROW_MAX: of 2, 4 and 8, those that pass over the row 2..SHORT_ROW_PASSES
    times (or once, with no lane idle: a row of 8 on 8 lanes) and whose `rows * lanes` threads
    fill every SM FILL_WAVES times over (SM_THREADS each); of them the most of those in
    `float4` (the lanes whose output loop vectorize-access makes a float4 a lane, hold-rows'
    `float4_row_loop`: 2 for an f32 row of 8, 4 for 16), else the most whose lane
    slots (ceil(n / lanes) * lanes) are within ROW_SLOTS_SLACK of the fewest; 8 where none
    qualify. The float4 lanes: H200 (2026-11-30, session 28, bench/results/session28/tools/
    ab28r.py, 8 lanes -> them, us): softmax over the last 8 of 707 x 1459 x 8 33.8 -> 19.0
    (torch.compile 18.1), of 16 x 293 x 397 x 8 64.8 -> 32.9, LayerNorm over 8 of
    339 x 256 x 27 x 8 72.7 -> 39.2, softmax 4096 x 512 x 16 79.8 -> 70.5 (4 lanes); all 12
    such programs faster (with a 13th changed by the store guard alone: 0.67 -> 1.00x
    torch.compile in geomean). Session 27 (call 6) had given rows of 8 two lanes without this
    and dropped it: where the rows past the last were masked, the guarded store kept the output
    loop scalar, and those ran slower (vectorize-access now keeps the guard around a float4).
    Longer rows: of 16 and 32, the most within ROW_SLOTS_SLACK of the fewest slots. On 132 SMs,
    3 million rows of 5 take 2 lanes (6 slots), 266 thousand 4 (2 lanes would fill the SMs less
    than twice), 444 thousand rows of 9 take 4 (12 slots against 8 lanes' 16; 2 lanes would pass
    5 times), 2 million of 13 8 (4 lanes: the same 16 slots); a row of 41 16 (48 slots; a warp
    would idle 23 of 64), a row of 53 a warp (the same 64 slots), a row of 301 a warp."""
    if n <= EIGHT_LANE_ROW_MAX:
        fill = FILL_WAVES * sms * SM_THREADS
        choices = [lanes for lanes in (2, 4, 8)
                   if (n == lanes or 2 <= -(-n // lanes) <= SHORT_ROW_PASSES)
                   and rows * lanes >= fill]  # fmt: skip
        if not choices:
            return 8
        if wide := [lanes for lanes in choices if lanes in float4]:
            return max(wide)
    else:
        choices = [16, WARP]
    slots = {lanes: -(-n // lanes) * lanes for lanes in choices}
    least = min(slots.values())
    return max(lanes for lanes, s in slots.items() if s <= least * ROW_SLOTS_SLACK)


def _stride_free_loops(top_loops: list[loop.ForOp], lane: SSAValue, lanes: int) -> None:
    """Each top-level free loop becomes `tile.strided_for free` from `lane` by `lanes`."""
    for f in top_loops:
        if f.is_reduce:
            continue
        strided = tile.StridedForOp(IterKind.FREE, lane, f.extent.data, lanes, f.detach_region(f.body))
        strided.attributes |= f.attributes
        Rewriter.replace_op(f, strided, [])


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
        elif budget > 1 and (math.gcd(e, budget) == budget or math.gcd(e, budget) >= 32):
            threads = math.gcd(e, budget)
            plan[i] = [(e // threads, K.BLOCK, name + "_b"), (threads, K.THREAD, name + "_t")]
            budget //= threads
        else:
            plan[i] = [(e, K.BLOCK, name)]
    if budget > 1 or (plan[-1][-1][1] != K.THREAD and axes[-1][1] > 1):
        # Sizes the block does not divide (odd, prime) give a part-filled block, or a warp whose
        # threads walk a slower axis (uncoalesced): the axes stay threads, flattened row-major,
        # which materialize spreads over blocks (the last one part-filled).
        return (f"the block does not divide the sizes ({' x '.join(str(e) for _, e, _ in axes)}): "
                f"{t.count(K.THREAD)} threads stay flat")
    _apply_plan(t, plan)
    return None


@dataclass(frozen=True)
class BlockifyLaunch(ModulePass):
    """Partition each tile's axes into block and thread axes of at most `block-size` threads."""

    name = "blockify-launch"

    block_size: int = tunable(256, (64, 128, 256, 512, 1024))
    sms: int | None = None
    """The GPU's multiprocessors, for packing short rows (default: the module's target's)."""
    row_trips: int = tunable(0, (0, 8, 12, 16), classes=("row reduction",))
    """A row of its own block takes the fewest lanes (ROW_LANES_MIN to 1024) that pass over it in
    at most this many trips; 0: min(block-size, the row's power of two). Tuned in row kernels
    only (pointwise kernels, which this pass also launches, have no rows)."""

    def __post_init__(self):
        check_option(self, "block_size", 1, 1024)
        check_option(self, "sms", 1)
        check_option(self, "row_trips", 0)

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        sms = target_sms(self.sms, op)
        for t in tiles(op):
            kernel = t.parent_op()
            where = f"@{kernel.sym_name.data}" if isinstance(kernel, tile.KernelOp) else "tile"
            reason = blockify(t, self.block_size, sms, self.row_trips)
            if reason is None:
                LOG.info("blockify-launch: %s partitioned", where)
            else:
                LOG.info("blockify-launch: declined %s: %s", where, reason)
