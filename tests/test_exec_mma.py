"""The CPU kernel executor runs the mma dialect: TF32 rounding, mma.sync and wgmma fragments,
and the asynchrony rules of wgmma (fences, waits, the async proxy) as one-line errors."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from dpl.dialects import make_context
from dpl.dialects import kernel as K
from dpl.dialects.parsing import LocatingParser
from dpl.interpreters import exec_kernel
from dpl.interpreters.tf32 import contract, round_tf32, split_tf32, truncate_tf32

ROOT = Path(__file__).resolve().parent.parent


def _kernel(text: str, name: str = "<test>") -> K.KernelFuncOp:
    module = LocatingParser(make_context(), text, name).parse_module()
    module.verify()
    return next(op for op in module.walk() if isinstance(op, K.KernelFuncOp))


def _lit(name: str) -> str:
    return (ROOT / "test/lit/translate" / name).read_text()


def _rel(out, ref) -> float:
    return float(np.linalg.norm(out.astype(np.float64) - ref) / np.linalg.norm(ref))


# ----------------------------------------------------------------------------- numerics


def test_round_tf32_is_nearest_ties_away():
    one = np.float32(1.0)
    ulp = np.float32(2.0**-10)  # TF32's ulp at 1
    tie = np.float32(1.0 + 2.0**-11)
    assert round_tf32(tie) == one + ulp  # a tie rounds away from zero
    assert round_tf32(-tie) == -(one + ulp)
    assert round_tf32(np.float32(1.0 + 2.0**-11 - 2.0**-20)) == one
    x = np.array([np.inf, -np.inf, 0.0, -0.0], np.float32)
    assert np.array_equal(round_tf32(x), x)
    assert np.isnan(round_tf32(np.float32(np.nan)))
    assert (round_tf32(np.float32(1.2345)).view(np.uint32) & 0x1FFF) == 0
    assert truncate_tf32(np.float32(1.0 + 2.0**-11)) == one


def test_split_tf32_keeps_fp32_accuracy():
    x = np.random.default_rng(0).standard_normal(10000).astype(np.float32)
    hi, lo = split_tf32(x)
    assert ((hi.view(np.uint32) & 0x1FFF) == 0).all() and ((lo.view(np.uint32) & 0x1FFF) == 0).all()
    err = np.abs((hi.astype(np.float64) + lo) - x) / np.abs(x)
    assert err.max() < 2.0**-21
    assert np.abs(hi.astype(np.float64) - x).max() / np.abs(x).max() > 1e-5  # hi alone is TF32


def test_contract_precisions():
    rng = np.random.default_rng(1)
    a, b = rng.standard_normal((2, 64, 256)).astype(np.float32)
    ref = (a.astype(np.float64) * b).sum(-1)
    e3 = _rel(contract(a, b, "3xtf32"), ref)
    e1 = _rel(contract(a, b, "tf32"), ref)
    assert e3 < 1e-6 < 1e-4 < e1
    with pytest.raises(ValueError, match="unknown precision 'bf16' \\(choices: ieee, 3xtf32, tf32\\)"):
        contract(a, b, "bf16")


# ----------------------------------------------------------------------------- mma.sync


def test_mma_sync_fragments_match_a_matmul():
    rng = np.random.default_rng(2)
    a = rng.standard_normal((16, 8)).astype(np.float32)
    b = rng.standard_normal((8, 8)).astype(np.float32)
    c = np.full((16, 8), np.nan, np.float32)
    exec_kernel.run_kernel(_kernel(_lit("mma_sync.mlir")), [a, b, c])
    ref = a.astype(np.float64) @ b.T.astype(np.float64)
    assert _rel(c, ref) < 1e-6
    assert np.array_equal(c, contract(a[:, None, :], b[None, :, :], "3xtf32"))


def test_mma_sync_is_warp_wide():
    kf = _kernel(_lit("mma_sync.mlir"))
    # run it on a block of 16 threads: half a warp executes the warp-wide instruction
    kf.block = type(kf.block)([type(kf.block.data[0])(16), *kf.block.data[1:]])
    a, b = np.ones((16, 8), np.float32), np.ones((8, 8), np.float32)
    with pytest.raises(ValueError, match="not whole warps"):
        exec_kernel.run_kernel(kf, [a, b, np.zeros((16, 8), np.float32)])


# ----------------------------------------------------------------------------- wgmma


def _wgmma_inputs(seed: int = 3):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((64, 32)).astype(np.float32)
    b = rng.standard_normal((128, 32)).astype(np.float32)
    return a, b, np.full((64, 128), np.nan, np.float32)


def test_wgmma_gemm_matches_float64():
    a, b, c = _wgmma_inputs()
    exec_kernel.run_kernel(_kernel(_lit("wgmma.mlir")), [a, b, c])
    ref = a.astype(np.float64) @ b.T.astype(np.float64)
    assert _rel(c, ref) < 1e-6
    assert np.array_equal(c, contract(a[:, None, :], b[None, :, :], "3xtf32"))


@pytest.mark.parametrize(
    "old, new, message",
    [
        ("  mma.fence_proxy_async\n", "", "no mma.fence_proxy_async after it"),
        ("  mma.fence_proxy_async\n  kernel.barrier\n", "  mma.fence_proxy_async\n", "with no kernel.barrier between"),
        ("  mma.wgmma_fence\n", "", "no mma.wgmma_fence since its accumulators were last accessed"),
        ("  mma.wgmma_commit\n  mma.wgmma_wait 0\n", "  mma.wgmma_commit\n",
         "accesses the accumulators of an mma.wgmma that its warpgroup has not waited for"),
        ("  mma.wgmma_wait 0\n", "  mma.wgmma_wait 1\n",
         "accesses the accumulators of an mma.wgmma that its warpgroup has not waited for"),
        ("%a_lo[0, %kk * 8], %b_hi", "%a_lo[4, %kk * 8], %b_hi", "not a 64x8 tile in bounds"),
        ("%a_lo[0, %kk * 8], %b_hi", "%a_lo[0, %kk * 8 + 4], %b_hi", "not a 64x8 tile in bounds"),
    ],
)
def test_wgmma_asynchrony_rules(old, new, message):
    text = _lit("wgmma.mlir")
    assert old in text
    a, b, c = _wgmma_inputs()
    with pytest.raises(ValueError, match=message):
        exec_kernel.run_kernel(_kernel(text.replace(old, new, 1)), [a, b, c])


def test_wgmma_overwriting_pending_operands_is_an_error():
    text = _lit("wgmma.mlir").replace(
        "  mma.wgmma_commit\n",
        "  mma.wgmma_commit\n  %z = arith.constant 0.0 : f32\n"
        "  kernel.store %z, %b_hi[%t, 0] : memref<128x32xf32, #mma.swizzle<128>, #kernel.smem>\n",
    )
    a, b, c = _wgmma_inputs()
    with pytest.raises(ValueError, match="overwrites shared memory that a pending mma.wgmma still reads"):
        exec_kernel.run_kernel(_kernel(text), [a, b, c])
