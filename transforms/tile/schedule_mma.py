"""The tensor-core choice of `schedule` for a matmul kernel (see schedule.py).

`mma_spec(kernel, ...)` decides whether a matmul goes to the tensor cores and with which block
tile, or says why not (the SIMT path then takes it; `dpl compile -v` logs the reason):

- precision `ieee`: never (SIMT fp32 FMA);
- the target: sm_90 gets wgmma tiles (sm_90a code), sm_80..sm_89 and sm_120 mma.sync tiles (warps of
  64 x 32, operands split in registers); older targets have no tensor cores for fp32;
- the shape: f32, M and N on one axis each with M a multiple of 64 and N of 32, K a multiple of
  32, and M, N >= 64, K >= 128 (tiny or ragged contractions stay SIMT, where nothing is wasted);
- the tile: bm x bn among TILES that divide M and N, the one of least modeled time.

The model (`tc_us`): a block of bm x bn takes per K step of 32 the time of its multiply-adds at
the SM's tensor-core rate scaled by the tile's efficiency (EFFICIENCY: a small tile reads more
shared memory per multiply), `blocks_per_sm` such blocks share an SM (shared memory: two K stages
of hi and lo halves), and a launch runs in rounds of sms x blocks_per_sm blocks; split-matmul-k
may split K (its own model) where the tile grid leaves SMs idle. The rates are the issue-16
probe's (3xTF32 on wgmma ~ 98 TFLOP/s on an H100, on mma.sync ~ 57; TF32 three times that);
calibrate them with bench/tc_probe.py and bench/gemm_sweep.py.
"""

from __future__ import annotations

import math

from xdsl.context import Context
from xdsl.dialects.builtin import Float32Type

from dpl.dialects import loop, mma
from dpl.transforms.tile.matmul import matmul_info
from dpl.transforms.tile.target import parse_target

WGMMA_TARGET = 90
TENSOR_CORES = 80
MIN_MN, MIN_K = 64, 128

#: Candidate block tiles (bm, bn) and their modeled efficiency relative to 128 x 256.
TILES = ((128, 256, 1.0), (128, 128, 0.9), (64, 128, 0.8), (64, 64, 0.65))  # 64 x 256 spills
#: Useful fp32 TFLOP/s of a whole H100 on 3xTF32 (the probe's: wgmma, mma.sync); TF32 is 3x that.
TFLOPS_3XTF32 = {"wgmma": 98.0, "mma_sync": 57.0}
#: mma.sync tiles (warps of 64 x 32: bm a multiple of 64, bn of 32).
SYNC_TILES = ((128, 128, 1.0), (64, 128, 0.85), (128, 64, 0.85), (64, 64, 0.7))
SMEM_PER_SM = 227 * 1024


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


def blocks_per_sm(bm: int, bn: int, precision: str, layout: str = "wgmma") -> int:
    threads = threads_of(bm, bn, layout)
    regs = bm * bn // threads + (bm + bn) * 32 // threads + 48  # accumulators, staged step, the rest
    by_regs = 65536 // (threads * min(255, regs))
    return max(1, min(SMEM_PER_SM // smem_bytes(bm, bn, precision, layout), by_regs, 2048 // threads))


def tc_us(m: int, n: int, k: int, batch: int, bm: int, bn: int, eff: float, precision: str, sms: int,
          layout: str = "wgmma") -> float:  # fmt: skip
    """Modeled time of the launch (no split): rounds x K steps x one block's step time."""
    rate = TFLOPS_3XTF32[layout] * (3 if precision == "tf32" else 1) * eff * 1e12 / sms  # per SM
    bps = blocks_per_sm(bm, bn, precision, layout)
    step_us = 2 * bm * bn * 32 * bps / rate * 1e6
    blocks = batch * (m // bm) * (n // bn)
    rounds = -(-blocks // (sms * bps))
    return rounds * (k // 32) * step_us


def mma_shape(t) -> tuple[int, int, int, int] | str:
    """(M, N, K, batch) of a tileified, K-chunked matmul tile, or why it is not one for the
    tensor cores."""
    info = matmul_info(t)
    if info is None or info.inner is None:
        return "not a K-chunked matmul tile"
    acc = info.inner.body.block.last_op
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
    k = info.reduce.extent.data * 32
    batch = math.prod(e for v, e, _ in t.axes) // (m * n)
    if m % 64 or n % 32 or m < MIN_MN or n < MIN_MN or k < MIN_K:
        return f"M x N x K = {m} x {n} x {k} is too small or ragged (M % 64, N % 32, M, N >= 64, K >= 128)"
    return m, n, k, batch


def mma_spec(ctx: Context, kernel, precision: str, target: str, sms: int, scratch) -> tuple[str, str] | str:
    """(pipeline spec, what to log) for the tensor-core schedule of loop kernel `kernel`, or
    why it stays on SIMT. `scratch(ctx, kernel, spec)` schedules a copy (schedule.scratch)."""
    if precision == "ieee":
        return "precision ieee (SIMT fp32)"
    cc = parse_target(target)
    if cc < TENSOR_CORES:
        return f"target {target} has no tensor cores for fp32"
    layout = "wgmma" if cc == WGMMA_TARGET else "mma_sync"  # wgmma is sm_90a's alone (not sm_120)
    block, _ = scratch(ctx, kernel, "tileify,chunk-matmul-k{k-tile=32}")
    tiles = [op for op in block.walk() if op.name == "tile.tile"]
    if len(tiles) != 1:
        return "not one tile"
    shape = mma_shape(tiles[0])
    if isinstance(shape, str):
        return shape
    m, n, k, batch = shape
    tiles = TILES if layout == "wgmma" else SYNC_TILES
    cands = [(tc_us(m, n, k, batch, bm, bn, eff, precision, sms, layout), bm, bn)
             for bm, bn, eff in tiles if m % bm == 0 and n % bn == 0]  # fmt: skip
    if not cands:
        return f"no tile of {', '.join(f'{a}x{b}' for a, b, _ in TILES)} divides M x N = {m} x {n}"
    us, bm, bn = min(cands)
    bps = blocks_per_sm(bm, bn, precision, layout)
    spec = (
        "tileify,chunk-matmul-k{k-tile=32},"
        f"split-matmul-k{{sms={sms} blocks-per-sm={bps} tile-elements={bm * bn}}},"
        f"tensorize-matmul{{layout={layout} bm={bm} bn={bn} precision={precision}}}"
    )
    modeled = ", ".join(f"{a}x{b}: {u:.0f} us" for u, a, b in sorted(cands))
    return spec, f"tensor cores ({precision}), {layout} {bm} x {bn} (modeled unsplit {modeled})"
