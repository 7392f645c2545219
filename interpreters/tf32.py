"""TF32 numerics for the CPU executors: the tensor cores' rounding, the 3xTF32 split, the MMA.

    round_tf32(x)          cvt.rna.tf32.f32: nearest TF32 (10 mantissa bits), ties away from zero
    truncate_tf32(x)       what a tensor core reads of an f32 operand (low 13 mantissa bits dropped)
    split_tf32(x)          (hi, lo) = (tf32(x), tf32(x - tf32(x))), so x ~ hi + lo
    round_toward_zero(x)   float64 -> the f32 next to it toward zero
    mma_tf32(a, b, c)      c + a @ b.T on truncated operands, products exact, the sum rounded
                           toward zero to f32 (c omitted: the accumulators start at zero)
    contract(a, b, p, promote)  sum over the last axis of a * b in precision p ('ieee', '3xtf32',
                           'tf32'), as the tensor cores run it in chains of `promote` K steps of 8

The MMA model: a product of two TF32 values has at most 22 significant bits and is exact in f32;
the hardware adds the products of one instruction (K = 8) and the accumulator and rounds the sum
to f32 once, toward zero (it truncates). This model does the same in float64. The truncation is
what the H100 shows (bench/results/h100-2026-11-24-tc-probe.md; Ootomo and Yokota 2022,
"Recovering single precision accuracy from Tensor Cores while surpassing the FP32 theoretical peak
performance"): each MMA loses about half an f32 ulp of its accumulator, always toward zero, so
along one accumulator chain the errors add up instead of cancelling and the relative error grows
linearly with the chain's length (3xTF32 on one chain over K = 3584: 2.5e-5, 60x cuBLAS fp32's;
this model gives about 1.3x that). Keeping chains short cures it: the MMAs of a few K steps
accumulate into a fresh fragment whose sum is then added to the real fp32 accumulator by an
ordinary (round-to-nearest) add, the "promotion". `contract` models exactly that, so the tile
executor sees what the chain length costs, and the kernel executor's `mma_tf32` truncates as the
hardware does, so a lowering that forgets to promote fails its meaning check on a long K.
A missing split or a wrong operand half shows up as a TF32-sized error (about 1e-3 relative)
next to the split's fp32-sized one.
"""

from __future__ import annotations

import numpy as np

from dpl.dialects.mma import chain_terms

PRECISIONS = ("ieee", "3xtf32", "tf32")
_LOW = np.uint32(0x1FFF)
_HALF = np.uint32(0x1000)


def round_tf32(x) -> np.ndarray:
    """Nearest TF32, ties away from zero (PTX `cvt.rna.tf32.f32`); NaN and inf stay."""
    x = np.asarray(x, dtype=np.float32)
    bits = x.view(np.uint32)
    # sign-magnitude: adding half an ulp to the magnitude bits rounds ties away from zero; a
    # carry into the exponent is the correct rounding (up to inf past the largest TF32)
    r = ((bits + _HALF) & ~_LOW).view(np.float32)
    return np.where(np.isfinite(x), r, x).astype(np.float32)


def truncate_tf32(x) -> np.ndarray:
    """The TF32 value a tensor core reads of an f32 operand: the low 13 mantissa bits dropped."""
    x = np.asarray(x, dtype=np.float32)
    return np.where(np.isfinite(x), (x.view(np.uint32) & ~_LOW).view(np.float32), x)


def split_tf32(x) -> tuple[np.ndarray, np.ndarray]:
    """The 3xTF32 split: hi = tf32(x), lo = tf32(x - hi) (the subtraction is exact in f32)."""
    x = np.asarray(x, dtype=np.float32)
    hi = round_tf32(x)
    lo = round_tf32((x - hi).astype(np.float32))
    return hi, lo


def round_toward_zero(x) -> np.ndarray:
    """float64 values rounded to f32 toward zero (the tensor cores' accumulator rounding)."""
    x = np.asarray(x, np.float64)
    y = x.astype(np.float32)
    over = np.isfinite(y) & (np.abs(y.astype(np.float64)) > np.abs(x))
    return np.where(over, np.nextafter(y, np.float32(0)), y).astype(np.float32)


def mma_tf32(a, b, c=None) -> np.ndarray:
    """One MMA: c + a @ b^T over the last axis (a [..., M, K], b [..., N, K], c [..., M, N]) on
    tf32-truncated operands, exact products, one rounding toward zero to f32; `c` None: the
    accumulators start at zero (wgmma's scale-d = 0)."""
    a64 = truncate_tf32(a).astype(np.float64)
    b64 = truncate_tf32(b).astype(np.float64)
    s = a64 @ np.swapaxes(b64, -1, -2)
    return round_toward_zero(s if c is None else np.asarray(c, np.float64) + s)


def contract(a, b, precision: str, k_step: int = 8, promote: int | None = None) -> np.ndarray:
    """sum_k a[..., k] * b[..., k] in `precision` as the tensor cores run it: K in steps of
    `k_step`, grouped into chains of `promote` steps (None: all of K in one chain). A chain
    starts at zero and runs `chain_terms` (3xtf32: lo*hi and hi*lo of each of its steps, then
    hi*hi of each), every MMA rounding toward zero; the chains' sums are added in f32, rounding
    to nearest. `ieee` is plain f32 products summed in float64 and rounded once (an fp32 FMA
    chain differs in the last bits)."""
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r} (choices: {', '.join(PRECISIONS)})")
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    if precision == "ieee":
        return (a.astype(np.float64) * b.astype(np.float64)).sum(-1).astype(np.float32)
    halves = (split_tf32(a), split_tf32(b)) if precision == "3xtf32" else ((round_tf32(a),), (round_tf32(b),))
    small, large = chain_terms(precision)
    k = a.shape[-1]
    steps = list(range(0, k, k_step))
    per_chain = promote or len(steps)
    total = np.zeros(np.broadcast_shapes(a.shape[:-1], b.shape[:-1]), np.float32)
    for c0 in range(0, len(steps), per_chain):
        chain = steps[c0 : c0 + per_chain]
        acc = np.zeros_like(total, np.float64)
        for terms in (small, large):
            for k0 in chain:
                for i, j in terms:
                    x, y = halves[0][i][..., k0 : k0 + k_step], halves[1][j][..., k0 : k0 + k_step]
                    acc = round_toward_zero(acc + (x.astype(np.float64) * y).sum(-1))
        total = (total.astype(np.float64) + acc).astype(np.float32)
    return total
