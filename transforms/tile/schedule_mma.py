"""The tensor-core candidates of `schedule` for a matmul kernel (see schedule.py) and their model.

`mma_candidates(kernel, ...)` lists the tensor-core schedules worth trying, or says why there are
none (the SIMT schedules are then the only ones; `dpl compile -v` logs the reason):

- precision `ieee`: never (SIMT fp32 FMA);
- the target: sm_90 gets wgmma tiles (sm_90a code), sm_80..sm_89 and sm_120 mma.sync tiles (warps of
  64 x 32, operands split in registers); older targets have no tensor cores for fp32;
- the shape: f32, M and N on one axis each, M, N >= 16 and K >= 32 (tiny contractions stay
  SIMT; an M or N of 16..31 is `thin`, THIN; a K of 32..127 is one to four K steps a block, which the model weighs with each block's
  fixed cost, FULL_BLOCK_STEPS: on the H200 4096 x 4096 x 96 nn went from 0.133 ms on SIMT to
  0.082 on wgmma 64 x 64, eager 0.092, bench/results/session16; an M or N of 32..63 pads to a
  64-wide tile, which the model weighs: on the H100 that took 2499 x 53 x 4373 from 0.078 to
  0.042 ms and 7873 x 59 x 679 + SiLU from 0.059 to 0.037, geomean 1.15x over the 15 of 149
  sweep matmuls it moved, its losses at most 1.2x on programs of 16 us or less), and a tile
  tensorize-matmul accepts (it is tried on a copy: a product whose factors mix
  M and N declines);
- the tiles: the block tiles of TILES (SYNC_TILES) whose accumulators, doubled by promotion's
  chain fragment, fit in 255 registers (`registers`: not wgmma 128 x 256, which spills until its
  chains run on half-width fragments): those that divide M and N; on a ragged shape (M not a
  multiple of 64, N or K not of 32) or one no tile divides, all of them, pad-matmul rounding M
  and N up to the tile and K up to 32 (masked accesses: the added points read 0 and store
  nothing, materialize-mma guards them), the padded work counted by the model; a thin N takes
  each wgmma tile NARROW_N (32) wide instead, padded to 32 rather than 64 or more. Each with
  split-matmul-k's automatic split of K, which spreads K over blocks where the tile grid alone
  leaves SMs idle (an M of 128 against 132 SMs), told the tile's cost of splits that add into the
  same outputs at the same time (`contention_trips`).

schedule.py schedules every candidate, tensor-core and SIMT, on a copy and keeps the one of least
modeled time, so a tensor-core plan that the model finds slower than SIMT is not taken.

The model (`mma_us`): a block of bm x bn takes per K step of 32 the time of its multiply-adds at
the SM's tensor-core rate scaled by the tile's efficiency (a small tile reads more shared memory
per multiply), `blocks_per_sm` such blocks share an SM (shared memory: two K stages of hi and lo
halves; registers), and a launch runs in rounds of sms x blocks_per_sm blocks (split-matmul-k's
`split_time`, its atomics included, and per round the wait of the same-address atomic adds of
a tile's splits running at once, `contention_trips`: fitted to the H100's split launches of
2026-11-24, where it is the likeliest reason an M of 128 ran its K steps at 2.9 us instead of
the modeled 1.6 (8 splits of a 128 x 128 tile at once took ~19 us more than their K steps, 2
splits ~3 us, splits in different rounds nothing); bench/mma_candidates.py times each split). The rates are the issue-16 probe's (3xTF32 on wgmma ~ 98
TFLOP/s on an H100, on mma.sync ~ 57; TF32 three times that); calibrate them with
bench/tc_probe.py and bench/gemm_sweep.py.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import NamedTuple

from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type

from dpl.dialects import loop, mma, tile
from dpl.transforms.tile.common import LOG, grid_fits
from dpl.transforms.tile.matmul import matmul_info
from dpl.transforms.tile.split_matmul_k import SPLIT_AXIS, SplitMatmulK, split_time
from dpl.transforms.tile.tensorize_matmul import K_STEP, tensorize
from dpl.transforms.tile.target import SM_THREADS, arch_smem, parse_target

WGMMA_TARGET = 90
TENSOR_CORES = 80
MIN_MN, MIN_K = 16, 32
THIN = 32
"""An M or N below THIN (16..31) is a thin side: padded to a 64-wide tile, more than twice its size.
The SIMT tiles `schedule` otherwise leaves untried beside tensor-core candidates (the ones its
model only estimates) are still weighed against such a matmul's (H200, session 21: 24 sweep
programs with a thin side, tensor-core candidates from an M or N of 16 rather than 32: with the
estimated SIMT tiles skipped 11 lost up to 1.3x; the tensor cores, where the model took them,
won 0.80 -> 1.02x, 0.63 -> 0.78x and 0.67 -> 0.91x eager)."""

#: A wgmma matmul whose N is thin (under THIN) is weighed on tiles NARROW_N wide (wgmma's n = 32:
#: 128 x 32 and 64 x 32), not padded to 64 or more; their modeled efficiency is step_us's default
#: for a tile not in TILES (0.5), and neither wave model covers them (their picks stay with the
#: old models, as thin sides' did). H200 (session 29, call 5, bench/results/session29/tools/
#: narrow29.py: the 9 sweep programs of seeds 62, 64-130 with N < 32 that it changes): 1.079 ->
#: 1.240x eager, none below 0.8x against 3 (bmm_tt 32 x 2579x29x1152 0.72 -> 1.01x, linear + sum
#: 8192 x 5347 -> 17 0.80 -> 1.15x, linear + amax 6528 x 1049 -> 31 0.76 -> 0.86x); slower:
#: bmm_tt 8 x 512x29x1728 3.40 -> 3.03x, bmm_nn 6 x 2048x29x1024 1.38 -> 1.33x. At N = 32 (not
#: thin: raced at 64 x 64 by the wave models) the same tiles, unraced, made 7 of 9 faster but
#: bmm_tt 16 x 2816x32x109 0.63 -> 0.51x and bmm_nt 51 x 1024x32x307 0.78 -> 0.62x: not taken.
NARROW_N = 32
#: Candidate block tiles (bm, bn) and their modeled efficiency relative to 128 x 256.
TILES = ((128, 256, 1.0), (128, 128, 0.9), (64, 128, 0.8), (64, 64, 0.65))  # 64 x 256 spills; see registers
#: Useful fp32 TFLOP/s of a whole H100 on 3xTF32 (the probe's: wgmma, mma.sync); TF32 is 3x that.
TFLOPS_3XTF32 = {"wgmma": 98.0, "mma_sync": 57.0}
#: Per round, the extra time (us) of each further split of a tile adding into the same outputs at
#: the same time (their atomic adds to one address wait on each other in L2), per output element
#: an SM adds: H100, 128 x 128 wgmma tiles (bench/results/h100-2026-11-24-run5.md, gemm-sweep/
#: h100-2026-11-24.json), measured minus rounds x trips x step_us: 128 x 2048 x 5632 split 8
#: (8 splits of each of its 16 tiles at once) +19 us; 128 x 3584 x 3584 split 14 (4.7 at once,
#: 3 rounds) +33 us; 2048 x 256 x 2048 split 4 +16 us; 512 x 2048 x 8192 split 2 +3 us; 2048 x
#: 3584 x 3584 split 2 (one at once) nothing past its zero fill: ~2.5 us per further adder for
#: a block's 16384 outputs. bench/mma_candidates.py measures it per split.
CONTENTION_US_PER_ELEMENT = 2.5 / 16384
#: mma.sync tiles (warps of 64 x 32: bm a multiple of 64, bn of 32).
SYNC_TILES = ((128, 128, 1.0), (64, 128, 0.85), (128, 64, 0.85), (64, 64, 0.7))
#: MMA steps of 8 per promoted accumulation chain (tensorize-matmul's promote): wgmma runs one K
#: step of 32 per chain (one commit group); mma.sync one step of 8 (3 MMAs), whose fragments stay
#: in registers between its small terms and hi*hi (longer chains reload them and spill at 128 x 128).
PROMOTE = {"wgmma": 4, "mma_sync": 1}
#: Padded (pad-matmul) tiles. Per K step of 32, each stage whose loads are masked costs
#: MASKED_STEP of its unmasked share (a step's time is the mean of its two stages'), by how
#: materialize-mma's fill reads it (stage_kind): "float4" (masked float4s along K), "rows" (below) or "element"
#: (masked floats, e.g. along M or N or over rows not a multiple of 4). And per block
#: PADDED_BLOCK_STEPS more K steps: its first stage loads with no K step to hide behind, its
#: epilogue's stores are guarded. Fitted on the H100 (bench/results/sweep/h100-2026-11-24-call2-
#: padded-tc.json, every ragged matmul on padded tensor-core plans, against the model without
#: these costs and bench/results/sweep/h100-2026-11-24.json, the SIMT plans) so that the schedule orders the eight measured ragged matmuls right
#: against the SIMT model (which itself reads 1.2-1.7x low on them: these are weights relative
#: to it, not absolute times). Measured over modeled, the padded 128 x 128 wgmma plans were 1.35x
#: (4723 x 128 x 2048 tn, 32 K steps a block, A element, B unmasked), 1.9-2.3x (b13 89 x 2048 x
#: 593 tt, 19 steps; b4 256 x 1171 x 1879, 59; 4493 x 541 -> 8192, 17; 853 x 5669 -> 1536, 178;
#: all element): these five stay on the tensor cores (measured 1.2-1.7x faster than SIMT); and
#: 3.6x (1000^3, split 2: 16 steps, A float4, B element), 4.2x (3079 x 4081 x 257, 9 steps,
#: element), 1.2x (1289 x 1024 -> 64, split 4: 8 steps, float4): these three go back to SIMT
#: (measured 0.069 against 0.109 ms, 0.314 against 0.404, 0.014 against 0.025). The bounds that
#: fix the constants (then): 4723 x 128 x 2048, (1.2 + 1) / 2 + 9 / 32 = 1.38 under the 1.42 that would
#: tie SIMT; 3079 x 4081 x 257, 1.2 + 9 / 9 = 2.2 over 2.0; 1000^3, (2.3 + 1.2) / 2 + 9 / 16 =
#: 2.3 over ~2.2 (the float4 weight rests on this case alone).
#: A stage whose masked float4 loads are masked only along rows (M or N; K whole, as after
#: repack-operands' copies padded along K) drops whole float4s: "rows", no dearer than unmasked
#: (not measured apart: the fit above had masked K in every float4 case but 1289 x 1024 -> 64),
#: and so is one masked along K only past a K that is a multiple of 32 (split-matmul-k's padded
#: trips: 4665 x 256 x 2333 nt, repacked to K 2336 and split 5 over 75 trips, measured 0.141 ms
#: on the tensor cores against 0.186 on SIMT, which "float4" had modeled 218 against 163 us).
#: Since masked loads are predicated loads (kernel.load `if`), which nothing waits for before
#: the split-store, a masked float4 stage costs no more than an unmasked one: "float4" 2.3 -> 1.0
#: (H100, .gpu/abcases.py, bench/results/h100-2026-11-24-session5.md: 1000^3 0.0687 on SIMT ->
#: 0.0443 ms padded 128 x 128 split 2, linear + mean 999 x 1000 -> 1001 0.0663 -> 0.0475). Masked
#: per element keeps 1.2: at 1.0, bmm 63 x 192x32x853 tt moved to the tensor cores and ran 0.0352
#: -> 0.0539 ms.
#: PADDED_BLOCK_STEPS 9 -> 5, refitted after the mask fix (session 6; H100, the 11 sweep plans of
#: seeds 0-8 it moves, ms before -> after, bench/results/h100-2026-11-24-session6.md): a short K
#: no longer leaves ragged matmuls on SIMT where padded tensor cores are faster: 3079 x 4081 x
#: 257 0.2436 -> 0.1781 (repacked, then wgmma), bmm 17 x 1613x87x253 tt 0.0821 -> 0.0514,
#: 4544 x 239 x 271 nt 0.0333 -> 0.0304, linear + ReLU 151 x 903 -> 1024 0.0278 -> 0.0200, and 5
#: more 1.1-1.3x faster. Two lost: bmm 63 x 192x32x853 tt 0.0350 -> 0.0537 (again: N = 32 on a
#: 128-wide tile; its SIMT split runs at 0.6 of its model) and linear + SiLU*mul 7873 x 679 -> 59
#: 0.0376 -> 0.0419.
#: "k-run" (session 8): materialize-mma's fill read K-contiguous rows that are not float4-aligned
#: (K = 541) a row per thread, 32 rows a warp load, until it read 32 consecutive floats of a row
#: (mma_mainloop.stage_mode). H100 (2026-11-24, bench/mma_candidates.py, y = x @ w.T, both
#: operands so; bench/results/gemm-sweep/h100-2026-11-24-session8-kruns-candidates.json):
#: measured over modeled at "element" 1.2, 4493 x 8192 x 541 688 / 1148 us, 853 x 1536 x 5669
#: 259 / 399, 3079 x 4081 x 257 170 / 268, 256 x 1171 x 1879 51 / 67: at 1.0, as float4. A/B of
#: the fill (.gpu/abcases.py, ms): bmm 31 x 64x541x1035 nt 0.2161 -> 0.0960, bmm 13 x
#: 89x2048x593 tt 0.0937 -> 0.0781, linear + SiLU*mul 7873 x 679 -> 59 0.0420 -> 0.0359. The
#: model still reads those four 1.15-1.45x slow: schedule.ELEMENT_TRIP still scales such a tile,
#: and PADDED_BLOCK_STEPS was fitted with the old fill (not refitted yet).
MASKED_STEP = {"float4": 1.0, "element": 1.2, "rows": 1.0, "k-run": 1.0}
PADDED_BLOCK_STEPS = 5.0
#: An unsplit launch of fewer wgmma blocks than fill the GPU once (`blocks_per_sm` on every SM).
#: Each SM then holds ceil(blocks / SMs) of them, and a lone block's K step takes LONE_STEP of
#: `step_us` (which shares the SM among `blocks_per_sm` blocks), not 1 / blocks_per_sm of it: one
#: 64 x 64 warpgroup does not keep the SM's tensor cores busy. And the launch pays BLOCK_US that
#: no K step hides: the first stage's loads, the epilogue's stores, the launch itself. Fitted on
#: the H100 (bench/mma_candidates.py, bench/results/h100-2026-11-24-session6.md: y = x @ w.T at
#: 128 x 2048 x 192 / 256, 256 x 1024 x 256, 64 x 2048 x 512, 128 x 1024 x 1024, each tile
#: unsplit over 6 to 32 K steps in one round): measured = BLOCK_US + trips x lone step, 64 x 64
#: 0.8 us a step (step_us 1.63) + 6.5 us, 64 x 128 1.1 (1.77) + 7.8, 128 x 128 1.57 (its step_us:
#: one block an SM already) + 10.2. Before, the model ranked 16 blocks of 128 x 128 (18.3 us
#: measured, modeled 9.4) over 64 of 64 x 64 (11.3 us, modeled 9.8) at 128 x 2048 x 192. Not for
#: split launches: split-matmul-k's atomic and contention costs were fitted to measured split
#: times that hold these costs already (with them, 3584 -> 512 at seq 512 moved from 128 x 128
#: split 8, 0.0380 ms, to 64 x 64 split 4, 0.0431). Not for padded tiles either: they keep
#: PADDED_BLOCK_STEPS, and lone padded 64 x 64 blocks measured slower than this (applied to all,
#: 18 of the 37 sweep plans it moved ran 1.05-1.8x slower, mostly SIMT moved to padded 64 x 64,
#: and 13 faster). mma.sync tiles have not been measured.
#: An unpadded, unsplit wgmma launch that fills the GPU (blocks_per_sm on every SM, in rounds)
#: pays per block FULL_BLOCK_STEPS K steps more than its trips: its first stage's loads, which
#: no K step hides, and its epilogue's stores (a padded tile pays PADDED_BLOCK_STEPS; the
#: launch BLOCK_US as before). Over long K they are a few percent; over a short K (2-4 steps a
#: block) they are half the time. Fitted on the H200 (2026-11-28, bench/results/session15's
#: call1/call2 short-K candidates, each tile timed alone): measured = BLOCK_US + rounds x (trips
#: + FULL_BLOCK_STEPS) x step_us at 4096 x 4096 x 64 / 96 / 128 nn, 8192 x 4096 x 64 nt and a
#: bmm of 64 x 512x512x64 gave 1.3-1.7 steps for 64 x 64, 2.5-3.1 for 64 x 128 and 4.0-4.4 for
#: 128 x 128 (without them, 128 x 128 at 8192 x 4096 x 64 was modeled 60 us, measured 165, and
#: ranked first). The per-block cost of 128 x 128 (one block an SM, nothing to overlap its
#: epilogue with) is why 64 x 64 wins short K: 4096 x 4096 x 128 nn 0.106 -> 0.099 ms (64 x 128).
FULL_BLOCK_STEPS = {(64, 64): 1.5, (64, 128): 2.8, (128, 128): 4.1}
LONE_STEP = {(64, 64): 0.49, (64, 128): 0.62, (128, 128): 1.0}
BLOCK_US = {(64, 64): 6.5, (64, 128): 7.8, (128, 128): 10.2}


#: The wave model (`wave_us`), which picks among the tensor-core tiles of one matmul. Fitted on the
#: H200 (bench/results/session25: every wgmma candidate, tile x split, of 34 sweep matmuls from
#: 2 to 128 K steps a block and 9 to 9408 blocks, timed alone, L2 flushed: call1/call2-cands.json;
#: tools/fitwave25.py fits it, rms error 11 % in log against the old model's 43 %). On its SM a
#: block runs its K steps after a fixed WAVE_BLOCK_US (its first loads and epilogue): one wgmma
#: block alone takes WAVE_LONE_STEP_US a step, and each further block sharing the SM in the same
#: wave adds WAVE_SHARED_STEP_US to every step (128 x 128 runs one block an SM).
WAVE_BLOCK_US = {(128, 128): 7.65, (64, 128): 6.42, (64, 64): 3.79}
WAVE_LONE_STEP_US = {(128, 128): 1.36, (64, 128): 1.02, (64, 64): 0.676}
WAVE_SHARED_STEP_US = {(128, 128): 0.0, (64, 128): 0.614, (64, 64): 0.423}
#: A padded tile's K steps cost WAVE_PADDED of an unpadded one's; a stage read from rows that are
#: not a multiple of 4 floats (one float at a time) adds WAVE_ELEMENT_ROW_US a step per row of
#: the stage (A: bm rows, B: bn) for each block of the wave; a launch costs WAVE_LAUNCH_US; each
#: further split of K WAVE_SPLIT_US per million outputs it adds into (its atomics).
WAVE_PADDED = 1.082
WAVE_ELEMENT_ROW_US = {"a": 0.03 / 128, "b": 0.156 / 128}
WAVE_LAUNCH_US = 7.45
WAVE_SPLIT_US = 1.23
#: The old model (`mma_us`) picks the tile unless the wave model finds another WAVE_MARGIN times
#: faster: its own error (11 %) decides nothing. Leaving one program out of the fit at a time, the
#: margin 1.1 moved 4 of the 34 (1.12-1.61x faster) and slowed none; without it 8 moved, and
#: matmul_nn 115x4567x827 ran 0.77x (bench/results/session25).
WAVE_MARGIN = 1.1


class MmaLaunch(NamedTuple):
    """A tensorized tile's mma.dot, block tile, layout and precision, its launch's blocks
    (split-matmul-k's `ks` among them), its K split and each block's K-outer trips."""

    dot: mma.DotOp
    bm: int
    bn: int
    layout: str
    precision: str
    blocks: int
    splits: int
    trips: int


def mma_tile(block) -> tile.TileOp | None:
    """The tensorized tile (holding an mma.dot) scheduled in `block`, if any."""
    tiles = (t for t in block.walk() if isinstance(t, tile.TileOp))
    return next((t for t in tiles if any(isinstance(o, mma.DotOp) for o in t.walk())), None)


def mma_launch(t: tile.TileOp) -> MmaLaunch | None:
    """The MmaLaunch of tile `t`, or None if it holds no mma.dot over two stages."""
    dot = next((o for o in t.walk() if isinstance(o, mma.DotOp)), None)
    if dot is None or not isinstance(dot.a.owner, mma.StageOp) or not isinstance(dot.b.owner, mma.StageOp):
        return None
    blocks = math.prod(e for _, e, k in t.axes if k == tile.AxisKind.BLOCK)
    splits = next((e for v, e, _ in t.axes if v.name_hint == SPLIT_AXIS), 1)
    red = dot.parent_op()
    trips = red.extent.data if isinstance(red, loop.ForOp) and red.is_reduce else 1
    return MmaLaunch(dot, dot.a.owner.rows, dot.b.owner.rows, dot.layout.data.value, dot.precision.data.value,
                     blocks, splits, trips)  # fmt: skip


def wave_us(t: tile.TileOp, sms: int, smem: int) -> float | None:
    """The wave model's time of a tensorized wgmma tile at 3xtf32 (None for any other): its
    blocks spread over `sms` SMs, the busiest SM's n of them in waves of at most `blocks_per_sm`,
    c at once; each wave WAVE_BLOCK_US plus its blocks' K trips at WAVE_LONE_STEP_US + (c - 1)
    WAVE_SHARED_STEP_US (WAVE_PADDED of it if any access is masked), plus the element-wise
    fills (WAVE_ELEMENT_ROW_US); the launch, and the split's atomics (WAVE_SPLIT_US)."""
    launch = mma_launch(t)
    if launch is None:
        return None
    dot, bm, bn, layout, precision, blocks, splits, trips = launch
    if layout != "wgmma" or precision != "3xtf32" or (bm, bn) not in WAVE_BLOCK_US:
        return None
    n = -(-blocks // sms)
    waves = -(-n // blocks_per_sm(bm, bn, precision, layout, smem))
    c = n / waves
    step = WAVE_LONE_STEP_US[(bm, bn)] + (c - 1) * WAVE_SHARED_STEP_US[(bm, bn)]
    if any(tile.is_masked(o) for o in t.walk()):
        step *= WAVE_PADDED
    for side, stage, rows in (("a", dot.a.owner, bm), ("b", dot.b.owner, bn)):
        if element_rows(stage):
            step += c * rows * WAVE_ELEMENT_ROW_US[side]
    atomics = WAVE_SPLIT_US * (splits - 1) * (blocks // splits) * bm * bn / 1e6
    return WAVE_LAUNCH_US + waves * (WAVE_BLOCK_US[(bm, bn)] + trips * step) + atomics


def element_rows(stage: mma.StageOp) -> bool:
    """Whether `stage` loads from rows that are not a multiple of 4 floats (no float4 reads)."""
    loads = [o for o in stage.body.walk() if isinstance(o, loop.LoadOp)]
    return any(o.memref.type.get_shape()[-1] % 4 != 0 for o in loads)  # type: ignore[union-attr]


def wave_pick(tiles: list[tile.TileOp | None], old: int, sms: int, smem: int) -> int:
    """The index of the tensor-core candidate to keep among matmul `tiles` (None: not tensorized)
    where the old model picked `old`: the wave model's fastest if it is WAVE_MARGIN times faster
    than `old`, else `old`."""
    wave = [None if t is None else wave_us(t, sms, smem) for t in tiles]
    timed = [i for i, w in enumerate(wave) if w is not None]
    if wave[old] is None or not timed:
        return old
    new = min(timed, key=lambda i: (wave[i], i))
    return new if wave[old] > WAVE_MARGIN * wave[new] else old  # type: ignore[operator]


def check_precision(precision: str, target: str) -> str:
    """The precision the schedule uses (`auto`: 3xtf32 where the target has tensor cores, else
    ieee); a one-line ValueError for an unknown one or tensor cores the target lacks."""
    if precision not in ("auto", *mma.PRECISIONS):
        raise ValueError(
            f"unknown precision '{precision}' (choices: {', '.join(mma.PRECISIONS)}; default auto: "
            "3xtf32 where the target has tensor cores)"
        )
    cc = parse_target(target)
    if precision == "auto":
        return "3xtf32" if cc >= TENSOR_CORES else "ieee"
    if precision != "ieee" and cc < TENSOR_CORES:
        raise ValueError(
            f"precision {precision} needs tensor cores (sm_80 and later), target {target} has none "
            "(choices there: ieee)"
        )
    return precision


def smem_bytes(bm: int, bn: int, precision: str, layout: str = "wgmma") -> int:
    halves = 2 if precision == "3xtf32" and layout == "wgmma" else 1  # mma.sync stages raw values
    return 2 * halves * (bm + bn) * 128


def threads_of(bm: int, bn: int, layout: str) -> int:
    return 2 * bm if layout == "wgmma" else (bm // 64) * (bn // 32) * 32


def registers(bm: int, bn: int, layout: str = "wgmma") -> int:
    """Estimated registers per thread: the fp32 accumulators and the fragment a promoted chain
    accumulates in (as many again), the staged K step's share, 48 for the rest (ptxas: 212 for
    wgmma 128 x 128)."""
    threads = threads_of(bm, bn, layout)
    return 2 * bm * bn // threads + (bm + bn) * 32 // threads + 48


def blocks_per_sm(bm: int, bn: int, precision: str, layout: str, smem: int) -> int:
    """Blocks one SM runs at once: by registers, threads, and `smem` (the target's shared memory
    per block, transforms/tile/target.py) over the block's."""
    threads = threads_of(bm, bn, layout)
    by_regs = 65536 // (threads * min(255, registers(bm, bn, layout)))
    return max(1, min(smem // smem_bytes(bm, bn, precision, layout), by_regs, SM_THREADS // threads))


def step_us(bm: int, bn: int, precision: str, sms: int, layout: str, smem: int) -> float:
    """Modeled time of one K step of 32 of a bm x bn block while `blocks_per_sm` such blocks
    share an SM: their multiply-adds at the SM's share of the tile's tensor-core rate."""
    eff = dict(((a, b), e) for a, b, e in (TILES if layout == "wgmma" else SYNC_TILES)).get((bm, bn), 0.5)
    rate = TFLOPS_3XTF32[layout] * (3 if precision == "tf32" else 1) * eff * 1e12 / sms  # per SM
    return 2 * bm * bn * 32 * blocks_per_sm(bm, bn, precision, layout, smem) / rate * 1e6


def contention_trips(bm: int, bn: int, precision: str, sms: int, smem: int, layout: str = "wgmma") -> float:
    """split-matmul-k's `contention-trips` for a bm x bn wgmma tile: CONTENTION_US_PER_ELEMENT
    for the outputs of the `blocks_per_sm` blocks of one SM, in K steps of 32 of the tile
    (`step_us`). mma.sync tiles (sm_80, sm_120) have not been measured: 0, as before."""
    if layout != "wgmma":
        return 0.0
    per_sm = blocks_per_sm(bm, bn, precision, layout, smem) * bm * bn
    return round(per_sm * CONTENTION_US_PER_ELEMENT / step_us(bm, bn, precision, sms, layout, smem), 2)


def mma_us(t: tile.TileOp, sms: int, smem: int) -> float | None:
    """The modeled time of a tensorized tile (None if it holds no mma.dot): its launch (block
    axes, split-matmul-k's `ks` among them) in rounds of sms x blocks_per_sm blocks, each running
    its K-outer trips at `step_us`, plus the split's atomic adds as split-matmul-k counts them
    (its `atomic-trips` and this tile's `contention_trips`). A padded tile's trips cost
    `padded_step` each, and each block PADDED_BLOCK_STEPS more. An unsplit, unpadded wgmma launch
    that does not fill the GPU once runs its blocks' steps at LONE_STEP, one that does pays each
    block FULL_BLOCK_STEPS more, and each launch pays BLOCK_US."""
    launch = mma_launch(t)
    if launch is None:
        return None
    dot, bm, bn, layout, precision, blocks, splits, trips = launch
    bps = blocks_per_sm(bm, bn, precision, layout, smem)
    at_once = sms * bps
    wait = contention_trips(bm, bn, precision, sms, smem, layout)
    step = padded_step(dot)
    fixed = PADDED_BLOCK_STEPS if step > 1 or any(tile.is_masked(o) for o in t.walk()) else 0.0
    work = trips * splits * step + fixed * splits  # K steps of all the splits of one tile
    if fixed:
        LOG.info(f"schedule: padded {bm} x {bn} tile: a K step costs {step:.2f}, a block {fixed:g} K steps more")
    per_trip = split_time(blocks // splits, work, splits, at_once, SplitMatmulK().atomic_trips, wait)  # type: ignore[arg-type]
    us = step_us(bm, bn, precision, sms, layout, smem)  # of a K step
    if layout != "wgmma" or fixed or splits > 1:
        return per_trip * us
    if blocks >= at_once:  # full rounds: each block's first loads and epilogue, which no K step hides
        fixed_steps = FULL_BLOCK_STEPS.get((bm, bn), PADDED_BLOCK_STEPS)
        per_trip = split_time(blocks, trips + fixed_steps, 1, at_once, 0)  # type: ignore[arg-type]
    else:  # one round, part-filled: ceil(blocks / sms) blocks an SM
        us *= max(LONE_STEP.get((bm, bn), 1.0), -(-blocks // sms) / bps)
    return per_trip * us + BLOCK_US.get((bm, bn), max(BLOCK_US.values()))


def stage_kind(stage: mma.StageOp) -> str | None:
    """How a stage's masked loads read (None: none is masked): "float4" where every masked load
    runs along K in its innermost dimension (the region's K offset there) over rows of a multiple
    of 4 floats (materialize-mma's fill reads it as masked float4s), "rows" if moreover none is
    masked along that innermost dimension (whole float4s in or out), "k-run" where they run
    along K over other rows (the fill's warps read 32 consecutive floats of a row), else
    "element" (along M or N)."""
    masked = [o for o in stage.body.walk() if isinstance(o, loop.LoadOp) and tile.is_masked(o)]
    if not masked:
        return None

    def float4(o: loop.LoadOp) -> bool:
        return k_contiguous(stage, o) and o.memref.type.get_shape()[-1] % 4 == 0  # type: ignore[union-attr]

    if not all(float4(o) for o in masked):
        return "k-run" if all(k_contiguous(stage, o) for o in masked) else "element"
    inner = any(_masked_within_steps(o) for o in masked)
    return "float4" if inner else "rows"


def _masked_within_steps(o: loop.LoadOp) -> bool:
    """Whether K-contiguous load `o` is masked along its innermost dimension (K) inside a K step:
    an extent not a multiple of K_STEP. A multiple of it is masked only in whole K steps past its
    end (split-matmul-k's padded trips, after repack-operands padded K), which load nothing."""
    shape = o.memref.type.get_shape()  # type: ignore[union-attr]
    return len(shape) - 1 in tile.masked_dims(o) and shape[-1] % K_STEP != 0


def k_contiguous(stage: mma.StageOp, o: loop.LoadOp) -> bool:
    """Whether load `o` of `stage` runs along K in its innermost dimension (the region's K offset
    there): materialize-mma's fill reads such a load as float4s where its rows allow."""
    c = stage.body.block.args[1]
    k_dims = {i for i, v in enumerate(o.indices) if v is c}
    return bool(k_dims & o.map.data.results[-1].used_dims())


def padded_step(dot: mma.DotOp) -> float:
    """The time of one K step of `dot`'s tile in unmasked K steps: the mean of its two stages'
    MASKED_STEP (1 for a stage with no masked load)."""
    kinds = [stage_kind(s.owner) for s in (dot.a, dot.b)]  # type: ignore[arg-type]
    return sum(MASKED_STEP[k] if k else 1.0 for k in kinds) / 2


def launchable(block) -> bool:
    """Whether every tile scheduled in `block` has block axes materialize-mma can map onto a grid
    (common.grid_fits): a batched matmul split over K has four, and so has one with a batch of
    two loops (which collapse-matmul-axes makes one where it can) beside its M and N tiles;
    the schedule drops the split, then the candidate."""
    tiles = [t for t in block.walk() if isinstance(t, tile.TileOp)]
    return all(grid_fits([e for _, e, k in t.axes if k == tile.AxisKind.BLOCK]) for t in tiles)


def mma_shape(t) -> tuple[int, int, int, int] | str:
    """(M, N, K, batch) of a matmul tile fresh from tileify (K not chunked), or why it is not one
    for the tensor cores."""
    info = matmul_info(t)
    if info is None or info.inner is not None:
        return "not a matmul tile"
    acc = info.reduce.body.block.last_op
    if not isinstance(acc, loop.AccumulateOp) or not all(isinstance(v.type, Float32Type) for v in acc.values):
        return "not f32"
    ext = {v: e for v, e, _ in t.axes}
    dims = []
    for what, axes in (("M", info.m_axes), ("N", info.n_axes)):
        big = [v for v in axes if ext[v] > 1]
        if len(big) != 1:
            return f"{what} spans {len(big)} axes"
        dims.append(ext[big[0]])
    m, n = dims
    k = info.reduce.extent.data
    batch = math.prod(e for v, e, _ in t.axes) // (m * n)
    if m < MIN_MN or n < MIN_MN or k < MIN_K:
        return f"M x N x K = {m} x {n} x {k} is too small (M, N >= {MIN_MN}, K >= {MIN_K})"
    return m, n, k, batch


@dataclass(frozen=True)
class MmaChoice:
    """The tensor-core schedule of a matmul: wgmma or mma.sync tiles of bm x bn at `precision`
    (`padded`: the shape is ragged, pad-matmul rounds it up to the tile; `split`: split-matmul-k
    may split K, off (`splits=1`) where its split axis would leave more block axes than a grid
    has; `thin`: M or N is below THIN)."""

    layout: str
    bm: int
    bn: int
    precision: str
    padded: bool = False
    split: bool = True
    thin: bool = False

    def staged(self) -> str:
        """The pipeline up to tensorize-matmul: tileify, pad-matmul to the block tile (one
        "thread" of bm x bn; it declines a shape the tile divides) and to a K of 32, K chunked."""
        return (
            f"tileify,pad-matmul{{rows={self.bm} cols={self.bn} threads=1 k-tile={K_STEP}}},"
            f"chunk-matmul-k{{k-tile={K_STEP}}}"
        )

    def spec(self, sms: int, smem: int) -> str:
        """The pipeline string (split-K's launch model told this tile's blocks per SM on a target
        of `sms` multiprocessors and `smem` bytes of shared memory per block, and its
        `contention_trips`)."""
        bps = blocks_per_sm(self.bm, self.bn, self.precision, self.layout, smem)
        wait = contention_trips(self.bm, self.bn, self.precision, sms, smem, self.layout)
        contention = f"contention-trips={wait} " if wait else ""
        unsplit = "" if self.split else " splits=1"  # (as a tuned point with splits = 1 says it)
        split = f"split-matmul-k{{sms={sms} blocks-per-sm={bps} {contention}tile-elements={self.bm * self.bn}{unsplit}}},"
        return (
            f"{self.staged()},{split}"
            f"tensorize-matmul{{layout={self.layout} bm={self.bm} bn={self.bn} "
            f"precision={self.precision} promote={PROMOTE[self.layout]}}}"
        )

    def what(self) -> str:
        return f"{self.layout} {self.bm} x {self.bn} ({self.precision}{', padded' if self.padded else ''})"


#: Tunable options the tensor-core pipeline pins: K is chunked by tensorize-matmul's K step.
PINNED = ("k_tile",)


def mma_layout(precision: str, target: str) -> str | None:
    """The tensor-core layout for `target` at (resolved) `precision`, or None (SIMT fp32)."""
    cc = parse_target(target)
    if precision == "ieee" or cc < TENSOR_CORES:
        return None
    return "wgmma" if cc == WGMMA_TARGET else "mma_sync"  # wgmma is sm_90a's alone (not sm_120)


def mma_candidates(ctx: Context, kernel, precision: str, target: str, sms: int,
                   scratch) -> list[MmaChoice] | str:  # fmt: skip
    """The tensor-core schedules to try for loop kernel `kernel`, one per block tile whose
    registers and stages fit the target (those that divide M x N, else all of them, padded;
    split-matmul-k picks each one's split), or why it stays on SIMT. `scratch(ctx, kernel, spec)`
    schedules a copy (schedule.scratch)."""
    if precision == "ieee":
        return "precision ieee (SIMT fp32)"
    layout = mma_layout(precision, target)
    if layout is None:
        return f"target {target} has no tensor cores for fp32"
    block, _ = scratch(ctx, kernel, "tileify")
    tiles = [op for op in block.walk() if isinstance(op, tile.TileOp)]
    if len(tiles) != 1:
        return "not one tile"
    shape = mma_shape(tiles[0])
    if isinstance(shape, str):
        return shape
    m, n, k, _ = shape
    smem = arch_smem(target, kernel)
    fit = [(bm, bn) for bm, bn, _ in (TILES if layout == "wgmma" else SYNC_TILES)
           if registers(bm, bn, layout) <= 255 and smem_bytes(bm, bn, precision, layout) <= smem]  # fmt: skip
    if not fit:
        return f"no tile's stages fit {smem} bytes of shared memory"
    if layout == "wgmma" and n < THIN:  # a thin N: each tile NARROW_N wide, not padded to 64 or more
        fit = list(dict.fromkeys((bm, NARROW_N) for bm, _ in fit))
    sizes = [(bm, bn) for bm, bn in fit if m % bm == 0 and n % bn == 0]
    padded = bool(m % 64 or n % 32 or k % K_STEP or not sizes)  # ragged, or no tile divides it
    if padded:
        sizes = fit
    choices = [MmaChoice(layout, bm, bn, precision, padded, thin=min(m, n) < THIN) for bm, bn in sizes]
    block, _ = scratch(ctx, kernel, choices[0].staged())
    (staged,) = [op for op in block.walk() if isinstance(op, tile.TileOp)]
    why = tensorize(staged, mma.Layout(layout), sizes[0][0], sizes[0][1], mma.Precision(precision))  # on the copy
    if why is not None:
        return f"tensorize-matmul declines it: {why}"
    return choices
