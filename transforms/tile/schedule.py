"""schedule: give every `loop.kernel` the tile pipeline of its class (the default schedule).

Each kernel is classified from its loop nest, then scheduled on its own with its class's pass
pipeline (below), as if that pipeline ran on a module holding only that kernel. The classes:

- pointwise: no reduce loop (elementwise ops, copies, concat parts): 4 consecutive elements
  per thread where every access allows one float4 (vectorize-pointwise), else one; blocks of
  blockify-launch's default size, those that read one tile of a large broadcast input (a split
  norm's weights) launched together (order-blocks);
- matmul on tensor cores (precision `3xtf32`, the default where the target has them, or `tf32`):
  every block tile of schedule_mma.py that divides an f32 contraction is a candidate (tileify,
  chunk-matmul-k, split-matmul-k's automatic split of K where the tile grid underfills the SMs,
  tensorize-matmul), modeled by schedule_mma.mma_us and weighed against the SIMT candidates
  below; the least modeled time wins, so the tensor cores are not taken where the model finds
  them slower, nor where tensorize-matmul declines (a tiny or ragged contraction, `precision=
  ieee`, a product mixing M and N: `-v` says why), nor where the tile's block axes do not fit a
  grid as materialize-mma lays them one-to-one (`schedule_mma.launchable`: more than three of
  extent > 1, or one past grid y / z; split K is first dropped where its axis made the fourth;
  a batch of two loops beside the M and N tiles that collapse-matmul-axes could not make one,
  logged `not tried`; a tuned or given tensor-core point there is an error). Where both have a
  wave model fitted to the H200 (wgmma at 3xtf32, MATMUL_TILES), the tensor cores' pick and the
  SIMT tile ranked first race at those instead (`race_waves`; not for a thin side or a K of
  under 4 steps; a K of at most 2 steps goes to SIMT);
- matmul (SIMT): a contraction (a reduce loop loading A and B, each indexed by a free loop the other is
  not): K chunked, K split over blocks when the launch model says it pays (split-matmul-k), a
  register tile per thread on 16 x 16 threads, A and B tiles staged in shared memory (rows padded
  by 4 floats, so both are read as float4 along K) per K step, double-buffered with cp.async
  (sm_80+) and pipelined. Four block tiles are tried (`MATMUL_TILES`): 64 x 64 (4 x 4
  registers, 3 blocks per SM), 128 x 128 (8 x 8, one block per SM, each A and B value read from
  shared memory feeds twice the multiply-adds), 64 x 32 (4 x 2, 4 blocks per SM; only where the
  64 x 64 grid is at most a tenth of the SMs: twice its blocks, half the split K needs; and,
  unsplit, where padded tensor-core tiles win on at most half the SMs over a K of at most 8
  trips: `small_tc_grid`) and 32 x 32 (2 x 2, 5 blocks per SM: four times the blocks of 64 x 64
  for an output too small to fill the GPU), each as split-matmul-k splits
  K and, where it did, unsplit too (and at the split count a sparse split displaced,
  split-matmul-k's `tile.dense_splits`); the one of least modeled time wins (`modeled_us`): each
  block's K trips times the trip time of the busiest SM (ceil(blocks / SMs) blocks: full rounds
  at the tile's measured time per trip, a part-filled round at its share of that but no less
  than a lone block's latency-bound trip, so idle SMs count), plus a split's atomics and the
  launch zeroing its output. 128 x 128 wins for large outputs (512 x 3584 and up) and long K
  (a split fills the GPU), 64 x 64 between, 32 x 32 where 64 x 64 tiles leave SMs idle
  (1117 x 19, 128 x 512 at short K; its cost is estimated, so it is not tried where the tensor
  cores take the matmul, unless M or N is thin, schedule_mma.THIN); `-v` logs every candidate's
  modeled time.
  A matmul reading an operand whose rows are not a multiple of 16 bytes (K = 257 floats; its
  tiles are then copied one element at a time, a SIMT trip costing `ELEMENT_TRIP`) is also tried
  with those operands copied into zero-padded aligned buffers first (repack-operands), the
  copies modeled as pointwise kernels (their bytes read and written, a launch); they are taken
  where they model at most `REPACK_MARGIN` (0.89) of the best time without them;
  A matmul with an epilogue that rules out split-K (SwiGLU's `silu(gate) * up`) is also tried
  with the epilogue split off into a pointwise kernel (split-epilogue), modeled as its bytes over
  the copy bandwidth plus a launch; TinyLlama's up projection at seq 128 takes that;
- flash attention: fuse-attention's `attn.softmax_reduce` (scores, softmax and P @ V as one
  reduction): tile-attention's one flash kernel per attention, 64 query rows per block, key tiles
  of 64 (32 past head dim 64, which keeps d 128's registers from spilling), on the tensor cores
  (mma.sync, 3xtf32 or tf32) or SIMT fp32 by the schedule's precision; where its query blocks
  fill under a quarter of the SMs (decode-like shapes: few heads, short queries, long keys) the
  keys are split over blocks and a combine kernel follows (`flash_spec`);
- attention: a contraction holding further reductions (softmax's max and sum fused into P @ V):
  one row of queries per block like a row reduction, K/V rows staged;
- row reduction: the rest (norms, softmax, sums, and contractions with a side of extent 1: a
  vector-matrix product's matrix columns on a warp, the lanes and split-reduce sharing K; H200,
  session 21: decode attention's (32, 1, 128) @ (32, 128, 1024) 0.49x -> 1.49x eager, 1 x 4096
  @ 4096 x 4096 0.17x -> 0.88x, x @ W^T at M = 1 within 0.93-1.01x of the matmul pipeline's
  time): nested reduce loops collapsed into one
  (collapse-loops), a block per row of the lanes that pass over it in at most 12 trips
  (blockify-launch `row-trips`), the reduce shared by the block's threads (warp shuffles),
  rows read more than once held in the lanes' registers (hold-rows: read from memory once), or
  staged in shared memory where too long to hold; rows fewer than FEW_ROWS_PER_SM per SM
  (`few_rows`) and f32 rows of STAGED_ROW lengths that float4s stage (`staged_row`) are staged,
  not held, by 256 lanes (few rows read more than once: up to 1024, `few_row_lanes`); short
  rows are packed a warp (or a group of lanes) per row and held likewise; a reduction over a
  slower dim than an output axis (a column reduction) gives that axis a warp of threads
  (pad-columns rounds it up; merge-columns first runs a narrow ragged one and the axis before
  it as one), and a plain reduction of few long rows is spread over more blocks that combine
  atomically (split-reduce). A norm of rows too few to fill the GPU and too long to keep in
  shared memory has its statistics split off into reduction kernels first (split-row-stats,
  when `split_rows`' memory-time model says so; `-v` logs the figures), a variance's sum and
  sum of squared deviations then read from one read of the row, by chunks of at least
  VARIANCE_CHUNK elements (chunk-variance). A row read more than
  once that is longer than 48 KB but fits a block's shared memory (a softmax over 32000) is
  staged whole, in dynamic shared memory, by blocks of 1024 threads (`long_row_smem`): read
  from memory once, not once per pass.

`dpl compile -v` logs each kernel's class and pipeline. The per-kernel pipelines are plain
pipeline strings (`PIPELINES`), so any of them can be run by hand with `dpl-opt --pass-pipeline`;
each scheduled `tile.kernel` records the one that made it as `tile.schedule = "<pipeline>"`.

Tuned schedules (schedule_space.py): a `loop.kernel` carrying `tile.point = {...}` (a point of
its `kernel_space`) is scheduled with its class's pipeline at that point instead of the
heuristics; `default_point` is the point the heuristics pick.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import NamedTuple

from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type, IntegerAttr, MemRefType, ModuleOp
from xdsl.ir import Block, Operation
from xdsl.passes import ModulePass

from dpl.dialects import attn, loop, mma, tile
from dpl.transforms.loop.attention import match_attention
from dpl.transforms.loop.split_epilogue import declines as split_epilogue_declines
from dpl.transforms.loop.split_epilogue import split_epilogue
from dpl.transforms.loop.repack_operands import declines as repack_declines
from dpl.transforms.loop.repack_operands import repack
from dpl.transforms.loop.split_row_stats import declines as split_row_stats_declines
from dpl.transforms.loop.split_row_stats import row_body
from dpl.transforms.options import check_option
from dpl.transforms.tile.blockify_launch import row_trip_lanes
from dpl.transforms.tile.chunk_matmul_k import ChunkMatmulK
from dpl.transforms.tile.common import LOG
# schedule_classes and schedule_space names are imported (and so re-exported) here in full: the
# driver, tests and bench import them from dpl.transforms.tile.schedule.
from dpl.transforms.tile.schedule_classes import (
    MATMUL_TILES,
    PIPELINES,
    SMALL_GRID,
    SMALL_TC_GRID,
    SMALL_TC_TRIPS,
    ROW,
    ROW_TRIPS,
    SCHEDULE,
    MatmulTile,
    classify,
    commit,
    module_block,
    run_isolated,
    scratch,
    scratch_module,
)
from dpl.transforms.tile.schedule_mma import (
    MmaChoice,
    check_precision,
    k_contiguous,
    launchable,
    mma_candidates,
    mma_launch,
    mma_layout,
    mma_tile,
    mma_us,
    wave_pick,
    wave_us,
)
from dpl.transforms.tile.schedule_space import (
    POINT,
    SCHEDULE_CHOICES,
    REPACK_OPERANDS,
    SPLIT_EPILOGUE,
    TENSOR_CORES,
    TUNED,
    class_defaults,
    class_pipeline,
    spec_defaults,
    class_space,
    format_point,
    kernel_space,
    matmul_tile,
    point_attr,
    point_spec,
    read_point,
    spec_text,
    tensor_only,
    tensor_pipeline,
    tensor_space,
    unused_options,
)
from dpl.transforms.tile.split_matmul_k import DENSE_SPLITS, SPLIT_AXIS, SplitMatmulK, split_time
from dpl.transforms.tile.stages import enclosing_loops
from dpl.transforms.tile.target import DEFAULT_ARCH, SM_THREADS, arch_smem, parse_target, target_arch, target_sms
from dpl.transforms.tile.tile_attention import TileAttention, causal_select
from dpl.transforms.tunable import tunable


#: The fewest key tiles a split of the flash kernel's keys keeps (its prologue and combine pay off).
FLASH_SPLIT_TILES = 4
FLASH_WGMMA_TILE = 64
"""Keys per step of the wgmma flash kernel (its transposed value tile and the scores' N)."""


def flash_wgmma_fits(sizes: dict[str, int], precision: str, target: str, smem: int) -> bool:
    """Whether an attention of these sizes runs on the wgmma flash kernel: the target has
    warpgroup MMA at this precision, attn.wgmma_decline takes the sizes at FLASH_WGMMA_TILE keys
    a step, and its shared memory fits the `smem` bytes a block may use (on the H200, 2026-11-29, causal d 128 at seq
    512-4096 ran 1.26-1.33x eager against mma.sync's 0.80-0.88x, d 64 GQA 5.6-7.9x against
    3.2-3.5x, seq 128 1.0x against 0.88x: bench/results/session19)."""
    if mma_layout(precision, target) != "wgmma":
        return False
    p = mma.Precision(precision)
    d, dv = sizes["depth"], sizes["value_depth"]
    if attn.wgmma_decline(attn.WGMMA_ROWS, FLASH_WGMMA_TILE, d, dv, p):
        return False
    return attn.wgmma_smem_bytes(FLASH_WGMMA_TILE, d, dv, p) <= smem

#: Pointwise kernels (the epilogue split-epilogue leaves): bytes over the H100's measured copy
#: bandwidth, plus a launch.
COPY_GBS = 3000.0
LAUNCH_US = 3.0


def stage_bytes(t: tile.TileOp) -> int:
    """The shared memory of tile `t`'s stages: each slab (its dims padded) times its buffers."""
    total = 0
    for st in [o for o in t.walk() if isinstance(o, tile.StageOp)]:
        pads = [p.data for p in st.pad] if st.pad is not None else [0] * len(st.slab)
        elements = math.prod(d.extent.data + p for d, p in zip(st.slab, pads))
        buffers = st.buffers.data if st.buffers is not None else 1
        total += buffers * elements * st.result.type.element_type.bitwidth // 8
    return total


def tile_k(t: tile.TileOp) -> tuple[int | None, int]:
    """Matmul tile `t`'s K-outer trips per block (None: no K-outer loop, each split 1 trip)
    and its K splits."""
    trips = next((o.extent.data for o in t.body.block.ops if _k_outer(o)), None)
    return trips, next((e for v, e, _ in t.axes if v.name_hint == SPLIT_AXIS), 1)


class SimtLaunch(NamedTuple):
    """A SIMT matmul tile's register tile (one of MATMUL_TILES), its launch's blocks and threads,
    its K split, each block's K trips (`tile_k`; a K left whole: its k-tile trips) and whether
    K was left whole (pad-matmul whole-k: staged once)."""

    choice: MatmulTile
    blocks: int
    threads: int
    splits: int
    trips: int
    whole: bool


def simt_launch(t: tile.TileOp) -> SimtLaunch | None:
    """The launch of SIMT matmul tile `t` (None if register-tile declined: its register tile is
    not one of MATMUL_TILES, a tile whose cost was measured)."""
    A = tile.AxisKind
    cells = math.prod(e for _, e, k in t.axes if k == A.CELL)  # (a side may be split into vector lanes)
    choice = next((c for c in MATMUL_TILES if cells == c.rows * c.cols), None)
    if choice is None:
        return None
    trips, splits = tile_k(t)
    whole = False
    if trips is None:  # K left whole (or split 1 trip each)
        k = next((o.extent.data for o in t.body.block.ops if isinstance(o, loop.ForOp) and o.is_reduce), 1)
        kt = ChunkMatmulK().k_tile
        trips, whole = max(1, -(-k // kt)), k > kt
    blocks = math.prod(e for _, e, k in t.axes if k == A.BLOCK)
    threads = math.prod(e for _, e, k in t.axes if k == A.THREAD)
    return SimtLaunch(choice, blocks, threads, splits, trips, whole)


def matmul_us(t: tile.TileOp, sms: int, smem: int) -> float | None:
    """The modeled time of matmul tile `t` (None if its register tile is not one of
    MATMUL_TILES): its K trips per block (in full rounds, each block's `block_trips` more) times
    the trip time of the busiest SM (ceil(blocks / sms) blocks of its threads:
    `MatmulTile.sm_trip_us`, so SMs left idle or part-filled are counted, and a tile shrunk to
    a short M or N runs more blocks at once, as many as the target's `smem` bytes hold), plus,
    for a split K, the split's atomic adds as split-matmul-k counts them (`atomic-trips` trips)
    and the launch that zeroes the output first."""
    launch = simt_launch(t)
    if launch is None:
        return None
    choice, blocks, threads, splits, trips, whole = launch  # (whole: modeled as its k-tile steps)
    if splits > 1:
        trips += SplitMatmulK().atomic_trips
    element = choice.measured and element_staged(t)  # (the estimated tile's cost is fitted so already)
    fits = smem // max(1, stage_bytes(t))
    if -(-blocks // sms) >= min(choice.at_once(threads), max(1, fits)):
        trips += choice.block_trips  # full rounds: each block's fixed cost
    if element and whole:  # its elements copied once, not once a trip
        us = (trips + ELEMENT_TRIP - 1) * choice.sm_trip_us(-(-blocks // sms), threads, fits)
    else:
        us = trips * choice.sm_trip_us(-(-blocks // sms), threads, fits) * (ELEMENT_TRIP if element else 1.0)
    if splits > 1:
        outs = {o.memref for o in t.walk() if isinstance(o, tile.AtomicOp)}
        nbytes = sum(math.prod(v.type.get_shape()) * v.type.element_type.bitwidth // 8 for v in outs)
        us += LAUNCH_US + nbytes / (COPY_GBS * 1e3)
    return us


#: The SIMT wave model, the tensor cores' (schedule_mma.wave_us) form fitted to the H200 (session
#: 26, bench/results/session26/tools/fitsimt26.py: the 168 k-tile-32 SIMT candidates of 33 sweep
#: matmuls timed in session 25 calls 1-2 and session 26 call 1; rms log error 0.141, 0.174 with
#: each program left out of the fit, against matmul_us's 0.577): per tile (rows x cols), a
#: wave's fixed cost and a K trip's with its SM to itself and per further block sharing it.
SIMT_WAVE_BLOCK_US = {(4, 4): 0.921, (8, 8): 2.544, (4, 2): 0.275, (2, 2): 0.004}
SIMT_WAVE_LONE_STEP_US = {(4, 4): 1.212, (8, 8): 3.571, (4, 2): 0.886, (2, 2): 0.658}
SIMT_WAVE_SHARED_STEP_US = {(4, 4): 0.830, (8, 8): 2.104, (4, 2): 0.554, (2, 2): 0.498}
#: A trip staging an operand element-wise (`element_staged`) takes this many times as long.
SIMT_WAVE_ELEMENT = 1.117
SIMT_WAVE_LAUNCH_US = 5.200
#: A split K's atomic adds: us per million output elements per split after the first.
SIMT_WAVE_SPLIT_US = 5.285


def matmul_tile(block: Block) -> tile.TileOp | None:
    """The SIMT matmul tile (cell axes: a register tile; no tensor-core dot) scheduled in `block`."""
    for t in [t for t in block.walk() if isinstance(t, tile.TileOp)]:
        if any(k == tile.AxisKind.CELL for _, _, k in t.axes) and not any(isinstance(o, mma.DotOp) for o in t.walk()):
            return t
    return None


def simt_wave_us(t: tile.TileOp, sms: int) -> float | None:
    """The SIMT wave model's time of matmul tile `t` (None if its register tile is not one of
    MATMUL_TILES): its blocks spread over `sms` SMs, the busiest SM's n of them in waves of at
    most `MatmulTile.at_once`, c at once; each wave SIMT_WAVE_BLOCK_US plus its blocks' K trips
    (`simt_launch`) at SIMT_WAVE_LONE_STEP_US + (c - 1)
    SIMT_WAVE_SHARED_STEP_US (SIMT_WAVE_ELEMENT of it where an operand is staged element-wise),
    plus the launch and a split's atomics."""
    launch = simt_launch(t)
    if launch is None:
        return None
    choice, blocks, threads, splits, trips, _ = launch
    rc = (choice.rows, choice.cols)
    n = -(-blocks // sms)
    waves = -(-n // choice.at_once(threads))
    c = n / waves
    step = SIMT_WAVE_LONE_STEP_US[rc] + (c - 1) * SIMT_WAVE_SHARED_STEP_US[rc]
    if element_staged(t):
        step *= SIMT_WAVE_ELEMENT
    if unstaged(t):
        step *= UNSTAGED_TRIP
    atomics = 0.0
    if splits > 1:
        outs = {o.memref for o in t.walk() if isinstance(o, tile.AtomicOp)}
        atomics = SIMT_WAVE_SPLIT_US * (splits - 1) * sum(math.prod(v.type.get_shape()) for v in outs) / 1e6
    return SIMT_WAVE_LAUNCH_US + waves * (SIMT_WAVE_BLOCK_US[rc] + trips * step) + atomics


#: The tensor cores' pick wins the race against SIMT's (`Schedule.race_waves`) at up to this
#: times SIMT's wave-model time (None: no race; the old models' times decide). H200 (session 26,
#: bench/results/session26/tools/racesim26.py, each program left out of the SIMT fit): over the
#: 33 measured programs, margins 0.9, 1.0 and 1.1 give 0.975, 0.962 and 0.971 of the default's
#: time. Measured at 1.0 with RACE_MIN_STEPS (bench/results/session26/): the 20 programs of
#: unseen seeds 62-73 it changes 0.975 -> 1.123x eager; 10 common projections 1.04 -> 1.27x.
RACE_MARGIN: float | None = 1.0
#: The fewest K steps of 32 (a block's trips times the splits) a matmul has for the race. H200
#: (session 26, call 2: the 50 programs the race changed): thin sides and K of 64-89 ran up to
#: 0.6x their old pick; with both left to the old models, geomean 1.17 -> 1.31x eager.
RACE_MIN_STEPS = 4
#: A matmul of at most this many K steps of 32 in all (and no thin side) leaves the tensor cores
#: to SIMT: a block of 1-2 wgmma steps cannot pay for its fixed cost. H200 (session 26, call 4:
#: every tile, split and repack choice of 10 short-K sweep matmuls): at K = 63-64 SIMT was the
#: fastest or tied in all 6 (matmul_tn 1472x1201x64: SIMT 15.4-16.2 us, every tensor-core tile
#: 20.1-22.8); at 3 steps the tensor cores won 2 of 4 (bmm_nn 16 x 640x2011x89), so those stay
#: with the old models (with 3 steps too, call 8: bmm_tn 8 x 2579x225x93 fell 0.86 -> 0.56x).
#: Call 9, the 3 programs of seeds 0 and 41-73 this changes: matmul_tn 1472x1201x64 0.59 ->
#: 0.83x eager, bmm_tn 32 x 509x983x64 0.58 -> 0.67x, matmul_tt 269x5547x64 (seed 69, found
#: after the rule was set) 0.59 -> 0.79x. Not for a SIMT tile that reads an operand unstaged
#: (`unstaged`: the rule's programs were all staged); the old models, UNSTAGED_TRIP among them,
#: decide those (session 35: a 1x1 convolution over NCHW, 32 x 64 x 56 x 56 -> 256: SIMT 372
#: us, wgmma 64 x 64 117, `dpl tune`'s best wgmma 128 x 64 113).
SIMT_MAX_STEPS = 2


#: A SIMT K trip whose staged tiles are copied one float at a time (a global operand whose rows
#: are not a multiple of 4 floats: no 16-byte cp.async) takes this many modeled trips: on the
#: H100 sweep of 2026-11-24 (bench/results/sweep/h100-2026-11-24-final.json) such matmuls ran
#: 1.5-1.7x (2.4 for a small bmm) their modeled time (3079 x 4081 x 257 314 us against 189,
#: 512 x 2741 x 79 tt 13.5 against 8, 1024 x 2635 x 23 b4 tt 27.5 against 18, 2447 x 33 -> 307
#: 8.3 against 5), the aligned ones 0.85-1.1x (1000^3 69 against 63, 999 x 1000 -> 1001 66
#: against 77, 64 x 2048 -> 2101 27.4 against 28). repack-operands' copies remove it. Not for
#: the estimated 32 x 32 tile: its cost was set by element-staged runs (1117 x 19 x 347; 67 x 115
#: -> 192 and 16 x 449 -> 8192 ran 1.1x its model). A tensor-core tile staging such an operand
#: along K is scaled alike: its padded-tile weights (schedule_mma.MASKED_STEP) were fitted
#: relative to the SIMT model without this factor, on such operands, so the order they set
#: is kept (an operand staged along M or N is read element-wise there, aligned or not: no factor,
#: and nothing for a copy to gain).
#: A K left whole (pad-matmul `whole-k`) copies its elements once, in one stage, not once a trip:
#: it is modeled as its k-tile trips plus ELEMENT_TRIP - 1 (H200, 2026-11-29, session 18: whole
#: Ks element-staged ran 1.2-1.5x their unscaled model, 512 x 2741 x 79 tt 11.7 us against 10,
#: bmm 21 x 25x1381x101 tt 15.2 against 10.6, 2447 x 33 -> 307 7.6 against 5; scaled by
#: ELEMENT_TRIP the first would model 16 and lose to its repacked copy, which ran 13.5).
#: Dropping the factor for tensor-core tiles (materialize-mma's k-run fill reads such rows
#: coalesced, and y = x @ w.T at 2560 x 1152 x 63 and x 127 ran 0.57-0.59x their scaled model)
#: made 19 of the 32 sweep programs of seeds 41-48 it changes slower and 2 faster: geomean 1.166
#: -> 0.972x eager (H200, session 23, bench/results/session23/call2-mmab.txt): the factor stays.
ELEMENT_TRIP = 1.6


def element_staged(t: tile.TileOp) -> bool:
    """Whether matmul tile `t` stages a global operand whose rows are not a multiple of 16 bytes
    (its tiles are then copied one element at a time): a SIMT tile's stage source, or a load in
    a tensor-core tile's `mma.stage` running along K (materialize-mma reads the others one
    element at a time whatever their rows)."""
    types = [o.source.type for o in t.walk() if isinstance(o, tile.StageOp) and not tile.is_smem(o.source)]
    types += [o.memref.type for s in t.walk() if isinstance(s, mma.StageOp) for o in s.walk()
              if isinstance(o, loop.LoadOp) and not tile.is_smem(o.memref) and k_contiguous(s, o)]  # fmt: skip
    return any(len(v.get_shape()) >= 2 and v.get_shape()[-1] * v.element_type.bitwidth % 128 for v in types)


#: A SIMT tile that reads an operand from global memory inside its K-inner loop (stage-inputs
#: declined it: a convolution's output positions collapsed into N, `x[%n floordiv 3136, %k, %n
#: floordiv 56 mod 56, %n mod 56]` over blocks that straddle images, is no box to stage) runs its
#: trips this many times as long as the staged tiles both SIMT models were fitted on. H200
#: (session 35, bench/results/session35/call1-*.txt, measured over modeled): 1x1 convolutions
#: over NCHW, 32 x 64 x 56 x 56 -> 256 on SIMT 128 x 128 372 / 106 us (3.5x), 8 x 66 x 64 x 64 ->
#: 64 35 / 12 (2.9x), grouped 32 x 240 x 28 x 28 (3 groups) on SIMT 64 x 64 89 / 59 (1.5x).
UNSTAGED_TRIP = 2.5


def unstaged(t: tile.TileOp) -> list[str]:
    """The global buffers SIMT matmul tile `t` loads inside its K-inner loop (the reduce loop
    holding no other: each thread reads those operand elements itself, once a K step)."""
    inner = [o for o in t.walk() if isinstance(o, loop.ForOp) and o.is_reduce
             and not any(isinstance(i, loop.ForOp) and i.is_reduce for i in o.body.walk())]  # fmt: skip
    loads = [o for f in inner for o in f.body.walk() if isinstance(o, loop.LoadOp) and not tile.is_smem(o.memref)]
    return list(dict.fromkeys(o.memref.name_hint or "an operand" for o in loads))


def _k_outer(op: Operation) -> bool:
    """Whether `op` is a matmul tile's K-outer loop (a reduce holding the K-inner reduce)."""
    return isinstance(op, loop.ForOp) and op.is_reduce and any(
        isinstance(o, loop.ForOp) and o.is_reduce for o in op.body.walk()
    )


def pointwise_us(t: tile.TileOp) -> float:
    """The modeled time of a pointwise tile: the bytes its loads and stores move over COPY_GBS
    (an access runs once per point of the tile's axes and of the loops around it in the tile:
    vectorize-pointwise's lanes of 4)."""
    elements = math.prod(e for _, e, _ in t.axes)
    nbytes = 0
    for o in t.walk():
        if isinstance(o, loop.LoadOp | loop.StoreOp):
            trips = math.prod(f.extent.data for f in enclosing_loops(o))
            nbytes += elements * trips * (o.memref.type.element_type.bitwidth // 8)
    return LAUNCH_US + nbytes / (COPY_GBS * 1e3)


def modeled_us(block: Block, sms: int, smem: int) -> float:
    """The modeled time of the matmul and pointwise kernels scheduled in `block` on a target of
    `sms` multiprocessors and `smem` shared memory bytes per block (inf if any kernel is neither or
    its matmul tile has no measured cost)."""
    total = 0.0
    for t in [t for t in block.walk() if isinstance(t, tile.TileOp)]:
        if any(isinstance(o, mma.DotOp) for o in t.walk()):
            us = mma_us(t, sms, smem)
            if us is not None and element_staged(t):  # (its weights are relative to SIMT's: ELEMENT_TRIP)
                us *= ELEMENT_TRIP
        elif any(k == tile.AxisKind.CELL for _, _, k in t.axes):
            us = matmul_us(t, sms, smem)
            if us is not None and unstaged(t):
                us *= UNSTAGED_TRIP
        elif not any(isinstance(o, loop.ForOp) and o.is_reduce for o in t.walk()):
            us = pointwise_us(t)
        else:
            us = None
        if us is None:
            return math.inf
        total += us
    return total


#: The choice of a matmul schedule that copies misaligned operands aligned first (repack-operands;
#: the copies and the matmul on them modeled together, `modeled_us`).
REPACK = "operands repacked"
#: Where the model decides, the copies are taken only if they model at most this share of the best
#: schedule without them: their kernel runs before the matmul, and the model of a misaligned
#: matmul (ELEMENT_TRIP) is rough. Modeled share (pointwise_us counting every lane of the copies'
#: float4s; the first fit, of session 3, counted a quarter of their bytes) -> measured on the H100
#: (2026-11-24, sessions 3 and 4, bench/schedule_ab.py): 0.57-0.66 paid 1.08-1.7x (bmm 3 x
#: 1023x1025x4099, 3079x4081x257, 4493x541 -> 8192 + amax, 853x5669 -> 1536 + sum), 0.87 paid
#: 1.15x (4544x239x271: 33.4 against 38.4 us); 0.91-1.09 did not (bmm 13 x 89x2048x593: 136
#: against 124 us, bmm 36 x 433x256x32, bmm 21 x 25x1381x101, 512x2741x79). One transposed bmm
#: lost 10 % at 0.76 (4 x 1024x2635x23), which the margin does not catch.
REPACK_MARGIN = 0.89


#: Shared memory a row may take when stage-inputs keeps it for the row's later reads.
ROW_SMEM_BYTES = 48 * 1024
#: Blocks of a row kernel per SM that keep the copy bandwidth busy (2 x 256 threads).
ROW_BLOCKS_PER_SM = 2
#: One block a row reading a row too long for shared memory from memory again on every pass
#: streams it this much slower than the plain reductions split-row-stats makes (its passes wait
#: on each other, one block's loads in flight at a time). H200 (2026-11-29, session 20,
#: norm20.py; one kernel against split, us): LayerNorm 251 x (384, 256) 227 / 108 (the model
#: had one kernel at 104), RMSNorm of the same 197 / 81 (69), LayerNorm 600 x (4096, 32)
#: 388 / 308 (315); the smallest of those ratios, 1.23, rounded. It also splits norms of many
#: such rows moving more than ~48 MB; split ran faster on all five tried (norm20b.py: LayerNorm
#: 1024 x (256, 256) 308 / 263, RMSNorm 4096 x (128, 512) 922 / 745).
UNSTAGED_ROW_FACTOR = 1.25


#: Rows fewer than this many per SM keep the row pipeline of before ROW_TRIPS: lanes by
#: blockify-launch's block size (256), the row staged in shared memory (float4 where it can be),
#: nothing held; a block's latency, not the count of blocks resident, bounds them. H200
#: (2026-11-29, session 17, rows_ab.py; staged -> held at ROW_TRIPS' lanes, us): LayerNorm
#: 32 x 1024 2.3 -> 4.8, RMSNorm 128 x 4096 3.9 -> 5.0, LayerNorm 300 x 5000 6.3 -> 7.1; from
#: 607 rows held (softmax 607 x 21911 42.4 -> 43.8, 2048 x 1025 9.2 -> 6.1).
FEW_ROWS_PER_SM = 4


def few_rows(kernel: loop.KernelOp, sms: int) -> bool:
    """Whether row kernel `kernel` has fewer than FEW_ROWS_PER_SM rows per SM."""
    found = row_body(kernel)
    return not isinstance(found, str) and math.prod(f.extent.data for f in found[0]) < FEW_ROWS_PER_SM * sms


#: Few rows passed over more than once keep a block's lanes passing over the row at most this
#: many times (ROW_TRIPS'), from 256 lanes (the block size) up to 1024, as long as every row's
#: block stays resident at once. H200 (session 23; 256 lanes -> this rule, us,
#: bench/results/session23/call5-fewab.txt): softmax 41 x 8031 8.1 -> 4.9 (0.59 -> 0.99x eager),
#: RMSNorm 64 x 8519 9.8 -> 4.9, RMSNorm over (64, 113) of 19 x 8 rows 9.2 -> 5.2, LayerNorm over
#: (64, 100) of 16 rows 7.5 -> 4.4; geomean of 21 few-row norms and softmaxes 1.32 -> 1.71x
#: eager, none slower. At most 8 trips (call4-fewab.txt) ran rows of 2500 and 3000 3-10 % slower
#: on 512 lanes, and LayerNorm 300 x 5000 6.1 -> 7.8 us on 1024 (2 blocks an SM: its 300 rows in
#: two rounds): hence 12 trips and the residency bound.
FEW_ROW_TRIPS = ROW_TRIPS
FEW_ROW_LANES = 256


def few_row_lanes(kernel: loop.KernelOp, sms: int) -> int:
    """The lanes of a block of few rows (`few_rows`) that it passes over more than once (a norm, a
    softmax: each pass waits on the last one's statistic): the fewest, a power of two from
    FEW_ROW_LANES to 1024 (blockify-launch's `row_trip_lanes`), that pass over the row's
    longest loop in at most FEW_ROW_TRIPS trips, and no more than keep every row's block
    resident at once (SM_THREADS a multiprocessor of `sms`), where every load that a top-level
    loop indexes reads along that loop (its index innermost: the row is contiguous);
    FEW_ROW_LANES otherwise (a one-pass reduction, which split-reduce spreads over blocks; a
    column reduction, whose lanes blockify-launch sets beside its columns)."""
    found = row_body(kernel)
    if isinstance(found, str):
        return FEW_ROW_LANES
    rows = math.prod(f.extent.data for f in found[0])
    loops = [o for o in found[1].ops if isinstance(o, loop.ForOp)]
    if len(loops) < 2:
        return FEW_ROW_LANES
    for f in loops:
        ivs = {o.iv for o in f.walk() if isinstance(o, loop.ForOp)}
        for ld in [o for o in f.walk() if isinstance(o, loop.LoadOp)]:
            used = [ld.indices[d] for d in ld.map.data.results[-1].used_dims()] if ld.map.data.results else []
            if ivs & set(ld.indices) and not ivs & set(used):
                return FEW_ROW_LANES
    lanes = max(FEW_ROW_LANES, row_trip_lanes(max(_trips(f) for f in loops), FEW_ROW_TRIPS))
    while lanes > FEW_ROW_LANES and rows * lanes > sms * SM_THREADS:  # every row's block resident
        lanes //= 2
    return lanes


#: Rows of f32 of these lengths, multiples of 4, are staged (256 lanes, float4 fills of 2 to 7
#: trips a lane), not held, as few rows are: held, each lane loads its elements one float at a
#: time. H200 (2026-11-29, session 17, rows_ab.py; staged by counted fills -> held, us): RMSNorm
#: 26560 x 2176 115 -> 138, 30000 x 2048 123 -> 125, 2048 x 4096 20.1 -> 21.2, softmax 57344 x
#: 2048 233 -> 248; held won outside it (softmax 8192 x 1024 22.6 -> 18.4, LayerNorm 65536 x 1500
#: 206 -> 198, softmax 4096 x 8192 76.5 -> 71.8) and on odd rows (20000 x 1537 80 -> 68), and
#: lost a little inside it on a few (LayerNorm 4096 x 2560 28.5 -> 27.0, RMSNorm 2048 x 3584 20.8
#: -> 18.1).
STAGED_ROW = (2048, 8192)


def staged_row(kernel: loop.KernelOp) -> bool:
    """Whether row kernel `kernel` reads rows of f32 (every load) whose length (its longest
    loop) is a multiple of 4 in STAGED_ROW (from, before)."""
    found = row_body(kernel)
    if isinstance(found, str):
        return False
    loops = [o for o in found[1].ops if isinstance(o, loop.ForOp)]
    loads = [o.memref.type for o in found[1].walk() if isinstance(o, loop.LoadOp)]
    length = max((_trips(f) for f in loops), default=0)
    f32 = all(isinstance(t, MemRefType) and isinstance(t.element_type, Float32Type) for t in loads)
    return f32 and length % 4 == 0 and STAGED_ROW[0] <= length < STAGED_ROW[1]


#: Threads per block of a row kernel whose row is staged in dynamic shared memory past
#: ROW_SMEM_BYTES: one or two such blocks fill an SM, so their own threads keep the copy busy.
LONG_ROW_THREADS = 1024
#: Shared memory a long row leaves for the rest of its block (the combines' scratch).
LONG_ROW_SPARE = 4 * 1024


def long_row_smem(kernel: loop.KernelOp, smem: int) -> int | None:
    """The shared memory (`smem` less LONG_ROW_SPARE) to stage the row of a row kernel in, when
    its row is longer than ROW_SMEM_BYTES but fits that and is read more than once (a softmax
    over 32000: read once from memory instead of three times); else None."""
    found = row_body(kernel)
    if isinstance(found, str):
        return None
    _, block = found
    loops = [o for o in block.ops if isinstance(o, loop.ForOp)]
    if len(loops) < 2:
        return None
    loads = [o.memref.type for o in block.walk() if isinstance(o, loop.LoadOp)]
    width = max((t.element_type.bitwidth // 8 for t in loads if isinstance(t, MemRefType)), default=4)
    row_bytes = width * max(_trips(f) for f in loops)
    room = smem - LONG_ROW_SPARE
    return room if ROW_SMEM_BYTES < row_bytes <= room else None


#: The fewest elements of a chunk chunk-variance reads a split row's variance by (0: it does not
#: run): the row's sum and its sum of squared deviations from one read of the row, not two.
VARIANCE_CHUNK = 256


def split_rows(kernel: loop.KernelOp, sms: int, smem: int = ROW_SMEM_BYTES) -> tuple[bool, str]:
    """Whether a row kernel runs faster with its statistics split off (split-row-stats), by a
    model of memory time: one block per row reads the row once when it fits shared memory (else
    once per pass: each statistic and the output, UNSTAGED_ROW_FACTOR slower) at the copy
    bandwidth scaled by the share of the GPU its rows fill (`ROW_BLOCKS_PER_SM` per SM); split,
    every pass reads it at the full bandwidth, plus a launch per statistic. A kernel with no
    outer free loop (`row_body`'s `whole`) is one row that no pipeline stages. (whether to
    split, the figures for the log)."""
    found = row_body(kernel, whole=True)
    if isinstance(found, str):
        return False, ""
    chain, block = found
    rows = math.prod(f.extent.data for f in chain)
    loops = [o for o in block.ops if isinstance(o, loop.ForOp)]
    if not loops:
        return False, ""
    if split_row_stats_declines(kernel) is not None:
        return False, f", {rows} rows of {max(_trips(f) for f in loops)}"
    length = max(_trips(f) for f in loops)
    passes = sum(1 for f in loops if f.is_reduce) + 1
    row_bytes = 4 * length
    staged = bool(chain) and row_bytes <= max(ROW_SMEM_BYTES, smem - LONG_ROW_SPARE)
    once_us = rows * row_bytes / (COPY_GBS * 1e3)
    share = min(1.0, rows / (sms * ROW_BLOCKS_PER_SM))
    fused = once_us * (1 if staged else passes * UNSTAGED_ROW_FACTOR) / share
    split = once_us * passes + LAUNCH_US * (passes - 1)
    return split < 0.9 * fused, (
        f", {rows} rows of {length} (modeled: one kernel {fused:.0f} us, statistics split off "
        f"{split:.0f} us)"
    )


def _trips(f: loop.ForOp) -> int:
    """The innermost iterations of a loop nest (its extent times its longest inner nest's)."""
    inner = [o for o in f.body.block.ops if isinstance(o, loop.ForOp)]
    return f.extent.data * max((_trips(o) for o in inner), default=1)


@dataclass(frozen=True)
class Schedule(ModulePass):
    """Schedule each loop kernel with the tile pipeline of its class (pointwise, row
    reduction, matmul, attention, flash attention)."""

    name = "schedule"

    target: str | None = None
    """The arch (default: the module's #kernel.target's; transforms/tile/target.py)."""
    sms: int | None = None
    """The GPU's multiprocessors, for the matmul launch model (default: the target's)."""
    precision: str = "auto"
    """Matmuls: ieee (SIMT fp32), 3xtf32 or tf32 (tensor cores); auto: 3xtf32 where the target
    has tensor cores, else ieee."""
    split_epilogue: bool | None = tunable(None, SCHEDULE_CHOICES[SPLIT_EPILOGUE])
    """A matmul with an epilogue: split it off (true), keep it (false), or the model decides."""
    tensor_cores: bool | None = tunable(None, SCHEDULE_CHOICES[TENSOR_CORES])
    """A matmul: on the tensor cores where the precision, target and shape allow (true or the
    default, None), or on SIMT fp32 (false)."""
    repack: bool | None = tunable(None, SCHEDULE_CHOICES[REPACK_OPERANDS])
    """A matmul reading operands whose rows are not a multiple of 16 bytes: copy them aligned
    first (true, repack-operands), never (false), or the model decides (None)."""

    def __post_init__(self):
        if self.target is not None:
            parse_target(self.target)  # a malformed target is a one-line error before any work
        check_option(self, "sms", 1)
        try:
            check_precision(self.precision, self.target or DEFAULT_ARCH)
        except ValueError as e:
            raise ValueError(f"schedule: {e}") from None

    def resolved(self, op: Operation) -> Schedule:
        """This schedule with the target and SMs it leaves unset filled from the #kernel.target of
        the module holding `op` (else the defaults)."""
        if self.target is not None and self.sms is not None:
            return self
        top = op.get_toplevel_object()
        module = top if isinstance(top, ModuleOp) else ModuleOp([])  # a detached kernel: defaults
        return replace(self, target=target_arch(self.target, module), sms=target_sms(self.sms, module))

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        if self.target is None or self.sms is None:  # the module's target fills what is not given
            return self.resolved(op).apply(ctx, op)
        for kernel in [k for k in op.walk() if isinstance(k, loop.KernelOp)]:
            point = kernel.attributes.get(POINT)
            if point is not None:
                self.schedule_point(ctx, kernel, read_point(kernel, point))
                continue
            cls = classify(kernel)
            if cls == "matmul":
                self.schedule_matmul(ctx, kernel)
                continue
            if cls == "flash attention":
                spec, why = self.flash_spec(kernel), ""
            elif cls == "row reduction":
                spec, why = self.row_spec(kernel)
            else:
                spec, why = PIPELINES[cls].format(target=self.target, sms=self.sms), ""
            LOG.info(f"schedule: @{kernel.sym_name.data} is {cls}{why}: {spec}")
            run_isolated(ctx, kernel, spec)

    def row_spec(self, kernel: loop.KernelOp) -> tuple[str, str]:
        """The pipeline of row kernel `kernel` and the figures for the log: its statistics split
        off (split-row-stats) where `split_rows`' model says so; else the row pipeline as
        `row_base` adapts it."""
        split, why = split_rows(kernel, self.sms, arch_smem(self.target, kernel))
        if split:
            chunks = f"chunk-variance{{min-chunk={VARIANCE_CHUNK}}}," if VARIANCE_CHUNK else ""
            return (f"split-row-stats,{chunks}schedule{{target={self.target} sms={self.sms} "
                    f"precision={self.precision}}}"), why
        base, more = self.row_base(kernel)
        return base or PIPELINES["row reduction"].format(target=self.target, sms=self.sms), why + more

    def row_base(self, kernel: loop.KernelOp) -> tuple[str | None, str]:
        """The row pipeline of `kernel` where it differs from PIPELINES' (else None), and what the
        log says of it: a long row's (`long_row_spec`), and for rows too few (`few_rows`) or
        staged by float4s (`staged_row`) lanes by block size (row-trips 0) and nothing held
        (hold-rows max-trips 0), so the row is staged."""
        long = self.long_row_spec(kernel)
        few = few_rows(kernel, self.sms)
        lanes = few_row_lanes(kernel, self.sms) if few and not long else FEW_ROW_LANES
        if few:
            why = f", fewer than {FEW_ROWS_PER_SM} rows an SM: " + (
                f"the row staged whole in shared memory, {LONG_ROW_THREADS} threads" if long
                else f"{lanes} lanes, staged" if lanes > FEW_ROW_LANES else "lanes by block size, staged")
        elif staged_row(kernel):
            why = ", a row of f32 staged by float4s: lanes by block size, staged"
        else:
            return long, (f", a long row: {LONG_ROW_THREADS} threads, the row held in registers (at most 32 a "
                          "thread) or else staged whole in shared memory") if long else ""  # fmt: skip
        spec = (long or PIPELINES["row reduction"].format(target=self.target, sms=self.sms)).replace(
            f"row-trips={ROW_TRIPS}", "row-trips=0")  # fmt: skip
        if lanes > FEW_ROW_LANES:
            spec = self.with_block_size(spec, lanes)
        return spec.replace("hold-rows,", "hold-rows{max-trips=0},"), why

    def with_block_size(self, spec: str, threads: int) -> str:
        """Row pipeline `spec` with blockify-launch's `block-size` set to `threads`."""
        head = f"blockify-launch{{sms={self.sms} "
        return spec.replace(head, f"{head}block-size={threads} ")

    def long_row_spec(self, kernel: loop.KernelOp) -> str | None:
        """The row pipeline staging the whole row of `kernel` in dynamic shared memory with
        blocks of LONG_ROW_THREADS, where `long_row_smem` finds room for it (else None)."""
        room = long_row_smem(kernel, arch_smem(self.target, kernel))
        if room is None:
            return None
        spec = PIPELINES["row reduction"].format(target=self.target, sms=self.sms)
        spec = self.with_block_size(spec, LONG_ROW_THREADS)
        return spec.replace("stage-inputs", f"stage-inputs{{smem-bytes={room}}}")

    def flash_spec(self, kernel: loop.KernelOp) -> str:
        """The flash kernel's pipeline for `kernel`: key tiles of 64 (past head dim 64: 32, which
        keeps d 128's registers from spilling, and 16 when causal: on the H100, 2026-11-24, causal
        d 128 at seq 128-2048, 28 heads and GQA 32/4, ran 1.17-1.38x faster with 16 than with 32,
        non-causal seq 1024 1.3x slower), and the keys split (split-KV) where the query
        tiles fill under a quarter of the SMs: into the power of two (at most 16) that brings the
        blocks nearest the SM count without going over, each split keeping at least
        FLASH_SPLIT_TILES key tiles. Past head dim 64 the scores' fragments are loaded 128 bits
        wide (tile-attention `wide=1`). Where no split is taken and the target has warpgroup MMA
        (flash_wgmma_fits), the kernel is one warpgroup on wgmma instead (`wgmma=1`): key tiles of
        FLASH_WGMMA_TILE, the scores in two chains of half the depth."""
        nest = match_attention(kernel)
        depth = 0 if isinstance(nest, str) else max(nest.sizes["depth"], nest.sizes["value_depth"])
        precision = check_precision(self.precision, self.target)
        causal = not isinstance(nest, str) and nest.row is not None and causal_select(
            nest.op.score_value, nest.row.iv, nest.op.score.block.args[0])  # fmt: skip
        keys_tile = 64 if depth <= 64 else 16 if causal else 32
        wide = 0 if depth <= 64 else 1  # 128-bit score fragments: measured at head dim 128 only
        splits = 1
        if not isinstance(nest, str):
            rows = TileAttention().rows
            blocks = math.prod(f.extent.data for f in nest.batch) * -(-nest.sizes["queries"] // rows)
            tiles = -(-nest.sizes["keys"] // keys_tile)
            if 4 * blocks <= self.sms:
                while (splits < 16 and 2 * splits * blocks <= self.sms
                       and tiles >= 2 * splits * FLASH_SPLIT_TILES):  # fmt: skip
                    splits *= 2
        wgmma, chain = 0, TileAttention().chain
        smem = arch_smem(self.target, kernel)
        if splits == 1 and not isinstance(nest, str) and flash_wgmma_fits(nest.sizes, precision, self.target, smem):
            # one warpgroup on warpgroup MMA (sm_90a), key tiles of 64, the scores in two chains
            wgmma, keys_tile, wide = 1, FLASH_WGMMA_TILE, 0
            chain = max(1, -(-nest.sizes["depth"] // 32) * 32 // 16)
        return PIPELINES["flash attention"].format(tile=keys_tile, precision=precision, splits=splits,
                                                   wide=wide, chain=chain, wgmma=wgmma, target=self.target,
                                                   sms=self.sms)  # fmt: skip

    def schedule_matmul(self, ctx: Context, kernel: loop.KernelOp) -> None:
        """Schedule `kernel` with each tensor-core candidate (schedule_mma.mma_candidates), each
        of MATMUL_TILES on SIMT, and (if it has an epilogue) split from its epilogue, each on a
        copy, and keep the one of least modeled time (a candidate that did not tensorize counts
        as infinitely slow). The `tensor_cores` and `split_epilogue` options narrow the
        candidates to those they allow, and so does `repack`."""
        tried, best = self.choose_matmul(ctx, kernel)
        _, _, block, back, _ = tried[best]
        commit(kernel, block, back)

    def choose_matmul(self, ctx: Context, kernel: loop.KernelOp) -> tuple[list[tuple], int]:
        """The schedules tried for matmul `kernel` (what, spec, scratch block, map back, choice:
        an MmaChoice, a MatmulTile or SPLIT_EPILOGUE) and the index of the one of least modeled
        time."""
        name = kernel.sym_name.data
        precision = check_precision(self.precision, self.target)
        smem = arch_smem(self.target, kernel)
        tried: list[tuple] = []
        split = split_epilogue_declines(kernel) is None and self.split_epilogue is not False
        repack = repack_declines(kernel) is None and self.repack is not False
        only_repack = repack and self.repack is True
        if not (split and self.split_epilogue) and not only_repack:
            cands = mma_candidates(ctx, kernel, precision, self.target, self.sms, scratch)
            if self.tensor_cores is False:
                cands = "tensor-cores=false"
            if isinstance(cands, str):
                LOG.info(f"schedule: @{name}: no tensor cores: {cands}")
                cands = []
            fits = []
            for choice in cands:
                spec = choice.spec(self.sms, smem)
                block, back = scratch(ctx, kernel, spec)
                if not launchable(block):  # the split axis made a fourth block axis (a batch)
                    LOG.info(f"schedule: @{name}: {choice.what()}: split K leaves too many block axes, unsplit")
                    choice = replace(choice, split=False)
                    spec = choice.spec(self.sms, smem)
                    block, back = scratch(ctx, kernel, spec)
                if not launchable(block):  # unsplit too: materialize-mma could not lay it on a grid
                    LOG.info(f"schedule: @{name}: {choice.what()} not tried (its block axes do not fit a grid: "
                             "more than three, or one past grid y / z)")
                    continue
                fits.append(choice)
                tried.append((choice.what(), spec, block, back, choice))
            cands = fits
            if self.tensor_cores is not True:
                grid = 0  # the blocks of the first (measured) tile's grid, its split left out
                for tile_choice in MATMUL_TILES:
                    what = f"SIMT {tile_choice.rows * 16} x {tile_choice.cols * 16}"
                    if not tile_choice.measured and cands and not cands[0].thin:  # weighed against the tensor cores: short K
                        trips = _k_trips(tried[-1][2])
                        if trips > SMALL_TC_TRIPS or tensor_cores_win(tried, self.sms, smem):
                            why = f"{trips} K trips" if trips > SMALL_TC_TRIPS else "the tensor cores take it"
                            LOG.info(f"schedule: @{name}: {what} not tried (an estimated cost; {why})")
                            continue
                    if grid >= self.sms and not tile_choice.measured:
                        LOG.info(f"schedule: @{name}: {what} not tried (an estimated cost; {grid} blocks fill the SMs)")
                        continue
                    if tile_choice.small_grid and grid > SMALL_GRID * self.sms:
                        if not small_tc_grid(tried, self.sms, smem):
                            LOG.info(f"schedule: @{name}: {what} not tried ({grid} blocks of the first tile: not a "
                                     "small grid, nor a small padded tensor-core grid over a short K)")
                            continue
                        tile_choice = replace(tile_choice, splits=1)  # (only unsplit won there)
                    spec = tile_choice.spec(self.target, self.sms)
                    block, back = scratch(ctx, kernel, spec)
                    m = matmul_tile(block)
                    bare = [] if m is None else unstaged(m)
                    if bare:  # (priced UNSTAGED_TRIP times a staged tile)
                        what += f" ({', '.join(bare)} unstaged)"
                    tried.append((what, spec, block, back, tile_choice))
                    grid = grid or _grid(tried[-1][2])
                    if _split(tried[-1][2]):  # split-matmul-k split K: weigh the tile unsplit too,
                        dense = _dense_splits(tried[-1][2])  # and where a sparse split displaced one, that
                        for splits in [1] + ([dense] if dense > 1 else []):
                            other = replace(tile_choice, splits=splits)
                            spec = other.spec(self.target, self.sms)
                            tried.append((what, spec, *scratch(ctx, kernel, spec), other))
        if split and self.tensor_cores is not True and not only_repack:
            kept = "" if self.repack is None else f" repack={str(self.repack).lower()}"
            spec = f"split-epilogue,schedule{{target={self.target} sms={self.sms} precision={precision}{kept}}}"
            tried.append(("epilogue split off", spec, *scratch(ctx, kernel, spec), SPLIT_EPILOGUE))
        if repack:  # misaligned operands: also try them copied aligned
            pinned = "".join(f" {o}={str(v).lower()}" for o, v in (("tensor-cores", self.tensor_cores),
                             ("split-epilogue", self.split_epilogue)) if v is not None)  # fmt: skip
            spec = f"repack-operands,schedule{{target={self.target} sms={self.sms} precision={precision}{pinned}}}"
            tried.append(("operands repacked", spec, *scratch(ctx, kernel, spec), REPACK))
        if not tried:
            raise ValueError(
                f"schedule: @{name}: no matmul schedule fits tensor-cores={self.tensor_cores} "
                f"split-epilogue={self.split_epilogue} (`-v` says why the tensor cores decline)"
            )
        costs = [modeled_us(block, self.sms, smem) for _, _, block, _, _ in tried]
        for i, (_, _, block, _, choice) in enumerate(tried):
            if isinstance(choice, MmaChoice) and not any(isinstance(o, mma.DotOp) for o in block.walk()):
                costs[i] = math.inf  # tensorize-matmul declined after the split (its log says why)
        rank = [c / REPACK_MARGIN if t[4] == REPACK and self.repack is None else c
                for t, c in zip(tried, costs)]  # fmt: skip
        tc = [i for i, t in enumerate(tried) if isinstance(t[4], MmaChoice) and costs[i] < math.inf]
        if len(tc) > 1:  # which tensor-core tile: the wave model's, where it is sure (schedule_mma.wave_pick)
            old = min(tc, key=lambda i: (costs[i], i))
            pick = tc[wave_pick([mma_tile(tried[i][2]) for i in tc], tc.index(old), self.sms, smem)]
            if pick != old:
                LOG.info(f"schedule: @{name}: {tried[pick][0]}{_split(tried[pick][2])} rather than "
                         f"{tried[old][0]}{_split(tried[old][2])} (the wave model)")
                for i in tc:  # the pick races SIMT at the old model's tensor-core time
                    rank[i] = costs[old] if i == pick else math.inf
        self.race_waves(name, tried, rank, smem)
        best = min(range(len(tried)), key=lambda i: (rank[i], i))
        what, spec, block, _, _ = tried[best]
        modeled = ", ".join(f"{w}{_split(b)}: {c:.0f} us" for (w, _, b, _, _), c in zip(tried, costs))
        LOG.info(f"schedule: @{name} is matmul, {what}{_split(block)} (modeled {modeled}): {spec}")
        return tried, best

    def race_waves(self, name: str, tried: list[tuple], rank: list[float], smem: int) -> None:
        """Where both have a wave model, the tensor-core tile ranked first and the SIMT tile ranked
        first race at their wave times (schedule_mma.wave_us, simt_wave_us; each fitted to the
        H200, where the old models rank small tensor-core launches 2-3x slow): the tensor cores
        win at up to RACE_MARGIN times SIMT's time. The winner keeps the better of the two ranks
        against the other candidates (copies repacked, an epilogue split off); the loser drops out.
        Not where M or N is thin (schedule_mma.THIN: SIMT's tile shrinks, which its fit barely
        saw) or K has fewer than RACE_MIN_STEPS steps in all (each block's fixed cost, which
        neither model sees: session 25's bmm_tn 32 x 509x983x64); of those, a K of at most
        SIMT_MAX_STEPS steps leaves the tensor cores to a staged SIMT tile (which keeps the better
        rank of the two). Only for wgmma at 3xtf32, where both rules were measured (the old
        models decide mma.sync and tf32)."""
        tc = [i for i, t in enumerate(tried) if isinstance(t[4], MmaChoice) and rank[i] < math.inf]
        simt = [i for i, t in enumerate(tried) if isinstance(t[4], MatmulTile) and rank[i] < math.inf]
        if RACE_MARGIN is None or not tc or not simt:
            return
        i, j = min(tc, key=lambda i: (rank[i], i)), min(simt, key=lambda i: (rank[i], i))
        t, m = mma_tile(tried[i][2]), matmul_tile(tried[j][2])
        launch = None if t is None else mma_launch(t)
        if tried[i][4].thin or launch is None or (launch.layout, launch.precision) != ("wgmma", "3xtf32"):
            return  # (what the wave models and SIMT_MAX_STEPS were measured on)
        if launch.trips * launch.splits <= SIMT_MAX_STEPS and not (m is not None and unstaged(m)):  # 1-2 K steps: SIMT
            if rank[i] < rank[j]:
                LOG.info(f"schedule: @{name}: {tried[j][0]}{_split(tried[j][2])} rather than {tried[i][0]}"
                         f"{_split(tried[i][2])} ({launch.trips * launch.splits} K steps: SIMT_MAX_STEPS)")
            rank[j] = min(rank[i], rank[j])
            for k in tc:
                rank[k] = math.inf
            return
        if launch.trips * launch.splits < RACE_MIN_STEPS:
            return  # a short K: outside what the wave models were fitted on
        w_tc = wave_us(t, self.sms, smem)
        w_simt = None if m is None else simt_wave_us(m, self.sms)
        if w_tc is None or w_simt is None:
            return
        win, lose = (i, j) if w_tc <= RACE_MARGIN * w_simt else (j, i)
        if rank[win] > rank[lose]:
            LOG.info(f"schedule: @{name}: {tried[win][0]}{_split(tried[win][2])} rather than "
                     f"{tried[lose][0]}{_split(tried[lose][2])} (the wave models: {w_tc:.0f} us on the tensor "
                     f"cores, {w_simt:.0f} us on SIMT)")
        rank[win], rank[lose] = min(rank[win], rank[lose]), math.inf

    def schedule_point(self, ctx: Context, kernel: loop.KernelOp, point: dict[str, object]) -> None:
        """Schedule `kernel` at `point` of its space (its `tile.point`) instead of the heuristics."""
        name, cls = kernel.sym_name.data, classify(kernel)
        for key, rewrite, declines, what in (
            (REPACK_OPERANDS, repack, repack_declines, "operands repacked"),
            (SPLIT_EPILOGUE, split_epilogue, split_epilogue_declines, "epilogue split off"),
        ):
            if point.get(key):  # the matmul gets the rest of the point; copies and epilogue their default
                why = declines(kernel)
                if why is not None:
                    raise ValueError(f"schedule: @{name}: {POINT}: {key}=true does not apply: {why}")
                self.schedule_rewritten(ctx, kernel, {k: v for k, v in point.items() if k != key}, rewrite)
                LOG.info(f"schedule: @{name} is matmul, {what} at {format_point(point)}")
                return
        base = self.flash_spec(kernel) if cls == "flash attention" else None
        if cls == "row reduction":
            base = self.row_base(kernel)[0]  # (a point runs the row pipeline, never split)
        try:
            spec = point_spec(cls, point, self.target, self.sms, self.precision, base, arch_smem(self.target, kernel))
        except ValueError as e:
            raise ValueError(f"schedule: @{name}: {POINT}: {e}") from None
        how = "tuned" if TUNED in kernel.attributes else "given"
        LOG.info(f"schedule: @{name} is {cls}, {how} point {format_point(point)}: {spec}")
        block, back = scratch(ctx, kernel, spec)
        if point.get(TENSOR_CORES) and not point.get("splits") and not launchable(block):
            # as the heuristics do (choose_matmul): the model's split K left a fourth block axis
            LOG.info(f"schedule: @{name}: split K at {format_point(point)} leaves too many block axes, unsplit")
            spec = point_spec(cls, {**point, "splits": 1}, self.target, self.sms, self.precision, base,
                              arch_smem(self.target, kernel))  # fmt: skip
            block, back = scratch(ctx, kernel, spec)
        if point.get(TENSOR_CORES) and not any(isinstance(o, mma.DotOp) for o in block.walk()):
            raise ValueError(
                f"schedule: @{name}: {POINT}: tensorize-matmul declined the kernel at {format_point(point)} "
                "(dpl compile -v says why)"
            )
        if point.get(TENSOR_CORES) and not launchable(block):
            raise ValueError(
                f"schedule: @{name}: {POINT}: the tensor-core tiles at {format_point(point)} have block axes "
                "that do not fit a grid (more than three, or one past grid y / z)"
            )
        commit(kernel, block, back)

    def schedule_rewritten(self, ctx: Context, kernel: loop.KernelOp, inner: dict[str, object],
                           rewrite: Callable[[loop.KernelOp], object]) -> None:  # fmt: skip
        """Replace `kernel` by the kernels `rewrite` makes of a copy of it (split_epilogue,
        repack), its matmul scheduled at point `inner` and the others by the heuristics."""
        module, back = scratch_module(kernel)
        block = module_block(module)
        (copy,) = [k for k in block.ops if isinstance(k, loop.KernelOp)]
        copy.attributes.pop(POINT)
        rewrite(copy)
        for part in [k for k in block.ops if isinstance(k, loop.KernelOp)]:
            if classify(part) == "matmul":
                part.attributes[POINT] = point_attr(inner)
                if TUNED in kernel.attributes:
                    part.attributes[TUNED] = kernel.attributes[TUNED]
        Schedule(self.target, self.sms, self.precision).apply(ctx, module)
        commit(kernel, block, back)

    def default_point(self, ctx: Context, kernel: loop.KernelOp) -> dict[str, object]:
        """The point of `kernel_space(kernel)` that the heuristics pick (what `apply` would do
        without a `tile.point`)."""
        if self.target is None or self.sms is None:
            return self.resolved(kernel).default_point(ctx, kernel)
        cls = classify(kernel)
        if cls == "flash attention":
            return spec_defaults([self.flash_spec(kernel)], cls)
        point = class_defaults(cls, self.target, self.sms)
        base = self.row_base(kernel)[0] if cls == "row reduction" else None
        if base is not None:
            point.update(spec_defaults([base], cls))
        if cls != "matmul":
            return point
        space = kernel_space(kernel, self.precision, self.target, self.sms)
        point = {k: v for k, v in point.items() if k in space}
        tried, best = self.choose_matmul(ctx, kernel)
        choice = tried[best][4]
        if TENSOR_CORES in space:
            point[TENSOR_CORES] = isinstance(choice, MmaChoice)
        if SPLIT_EPILOGUE in space:
            point[SPLIT_EPILOGUE] = choice == SPLIT_EPILOGUE
        if REPACK_OPERANDS in space:
            point[REPACK_OPERANDS] = choice == REPACK
        if isinstance(choice, MmaChoice):
            point.update(bm=choice.bm, bn=choice.bn)
            if not choice.split:  # kept unsplit: its split would leave too many block axes
                point["splits"] = 1
            return point
        if choice in (SPLIT_EPILOGUE, REPACK):  # the point of the matmul the split or copies leave
            module, _ = scratch_module(kernel)
            (copy,) = [k for k in module_block(module).ops if isinstance(k, loop.KernelOp)]
            if choice == SPLIT_EPILOGUE:
                split_epilogue(copy)
            else:
                repack(copy)
            parts = [k for k in module_block(module).ops if isinstance(k, loop.KernelOp)]
            (acc,) = [k for k in parts if classify(k) == "matmul"]
            inner = self.default_point(ctx, acc)
            kept = {REPACK: REPACK_OPERANDS, SPLIT_EPILOGUE: SPLIT_EPILOGUE}[choice]  # (set above)
            point.update({k: v for k, v in inner.items() if k in space and k != kept})
            return point
        point.update(rows=choice.rows, cols=choice.cols)
        if choice.splits:
            point["splits"] = choice.splits
        return point



def _grid(block: Block) -> int:
    """The blocks of the matmul tile scheduled in `block`, less its K split."""
    return max((math.prod(e for v, e, k in t.axes if k == tile.AxisKind.BLOCK and v.name_hint != SPLIT_AXIS)
                for t in block.walk() if isinstance(t, tile.TileOp)), default=0)  # fmt: skip


def _k_trips(block: Block) -> int:
    """The K trips of the matmul tile scheduled in `block`, over all its K splits (0: a tile
    with no K-outer loop)."""
    for t in block.walk():
        if isinstance(t, tile.TileOp):
            trips, splits = tile_k(t)
            if trips:
                return trips * splits
    return 0


def _fastest(tried: list[tuple], sms: int, smem: int) -> tuple:
    """The `tried` entry of least modeled time."""
    return min(tried, key=lambda t: modeled_us(t[2], sms, smem))


def tensor_cores_win(tried: list[tuple], sms: int, smem: int) -> bool:
    """Whether the `tried` entry of least modeled time is a tensor-core schedule."""
    return bool(tried) and isinstance(_fastest(tried, sms, smem)[4], MmaChoice)


def small_tc_grid(tried: list[tuple], sms: int, smem: int) -> bool:
    """Whether padded tensor-core tiles win the matmul so far (the `tried` entry of least modeled
    time is an MmaChoice on a ragged shape) on a grid of at most SMALL_TC_GRID of the SMs, with
    a K of at most SMALL_TC_TRIPS trips (read off the first SIMT tile tried): a `small_grid` SIMT
    tile is then weighed against them too, unsplit, and can only take the matmul from them."""
    first = next((b for _, _, b, _, c in tried if isinstance(c, MatmulTile)), None)
    if first is None or not 0 < _k_trips(first) <= SMALL_TC_TRIPS:
        return False
    _, _, block, _, choice = _fastest(tried, sms, smem)
    return isinstance(choice, MmaChoice) and choice.padded and 0 < _grid(block) <= SMALL_TC_GRID * sms


def _dense_splits(block: Block) -> int:
    """The split count a sparse split displaced in the matmul scheduled in `block`
    (split-matmul-k's `tile.dense_splits`; 0: none)."""
    for k in block.walk():
        if isinstance(k, tile.KernelOp) and isinstance(attr := k.attributes.get(DENSE_SPLITS), IntegerAttr):
            return attr.value.data
    return 0


def _split(block: Block) -> str:
    """`, split S` for the K split of the matmul tile scheduled in `block`, if any."""
    splits = [e for t in block.walk() if isinstance(t, tile.TileOp) for v, e, _ in t.axes if v.name_hint == SPLIT_AXIS]
    return f", split {splits[0]}" if splits else ""
