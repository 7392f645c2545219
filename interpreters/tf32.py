"""TF32 numerics for the CPU executors: the tensor cores' rounding, the 3xTF32 split, the MMA.

    round_tf32(x)        cvt.rna.tf32.f32: nearest TF32 (10 mantissa bits), ties away from zero
    truncate_tf32(x)     what a tensor core reads of an f32 operand (low 13 mantissa bits dropped)
    split_tf32(x)        (hi, lo) = (tf32(x), tf32(x - tf32(x))), so x ~ hi + lo
    mma_tf32(a, b, c)    c + a @ b.T on truncated operands, products exact, the sum rounded to f32
    contract(a, b, p)    sum over the last axis of a * b in precision p ('ieee', '3xtf32', 'tf32')

The MMA model: a product of two TF32 values has at most 22 significant bits and is exact in f32;
the hardware adds the products of one instruction (K = 8) and the accumulator with more than f32
precision and rounds once. This model does the same in float64, so its rounding differs from the
chip's only in the last bit or so, and a missing split or a wrong operand half shows up as a
TF32-sized error (about 1e-3 relative) next to the split's fp32-sized one.
"""

from __future__ import annotations

import numpy as np

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


def mma_tf32(a, b, c) -> np.ndarray:
    """One MMA: c + a @ b^T over the last axis (a [..., M, K], b [..., N, K], c [..., M, N]) on
    tf32-truncated operands, exact products, one rounding to f32."""
    a64 = truncate_tf32(a).astype(np.float64)
    b64 = truncate_tf32(b).astype(np.float64)
    return (np.asarray(c, np.float64) + a64 @ np.swapaxes(b64, -1, -2)).astype(np.float32)


def contract(a, b, precision: str, k_step: int = 8) -> np.ndarray:
    """sum_k a[..., k] * b[..., k] in `precision`, K in steps of `k_step` as the MMA runs it:
    `3xtf32` accumulates lo*hi + hi*lo + hi*hi per step, `tf32` hi*hi, `ieee` is plain f32
    products summed in float64 and rounded once (an fp32 FMA chain differs in the last bits)."""
    if precision not in PRECISIONS:
        raise ValueError(f"unknown precision {precision!r} (choices: {', '.join(PRECISIONS)})")
    a = np.asarray(a, np.float32)
    b = np.asarray(b, np.float32)
    if precision == "ieee":
        return (a.astype(np.float64) * b.astype(np.float64)).sum(-1).astype(np.float32)
    if precision == "3xtf32":
        (ah, al), (bh, bl) = split_tf32(a), split_tf32(b)
        terms = [(al, bh), (ah, bl), (ah, bh)]
    else:
        terms = [(round_tf32(a), round_tf32(b))]
    k = a.shape[-1]
    acc = np.zeros(np.broadcast_shapes(a.shape[:-1], b.shape[:-1]), np.float32)
    for k0 in range(0, k, k_step):
        for x, y in terms:
            part = (x[..., k0 : k0 + k_step].astype(np.float64) * y[..., k0 : k0 + k_step]).sum(-1)
            acc = (acc.astype(np.float64) + part).astype(np.float32)
    return acc
