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


# ----------------------------------------------------------------------------- wgmma_rs

WGMMA_RS = """
kernel.func @k(%x: memref<128x4xf32>, %y: memref<8x32xf32>, %out: memref<128x4xf32>) grid [1, 1, 1] block [128, 1, 1] smem 2048 {
  %b = kernel.smem dynamic offset 0 : memref<8x32xf32, #mma.swizzle<128>, #kernel.smem>
  %acc = kernel.alloca : memref<4xf32>
  %c4 = arith.constant 4 : index
  %c32 = arith.constant 32 : index
  %t = kernel.thread_id x
  %r = arith.divui %t, %c32 : index
  %col = arith.remui %t, %c32 : index
  %r4 = arith.addi %r, %c4 : index
  %y0 = kernel.load %y[%r, %col] : memref<8x32xf32>
  kernel.store %y0, %b[%r, %col] : memref<8x32xf32, #mma.swizzle<128>, #kernel.smem>
  %y1 = kernel.load %y[%r4, %col] : memref<8x32xf32>
  kernel.store %y1, %b[%r4, %col] : memref<8x32xf32, #mma.swizzle<128>, #kernel.smem>
  %a0 = kernel.load %x[%t, 0] : memref<128x4xf32>
  %a1 = kernel.load %x[%t, 1] : memref<128x4xf32>
  %a2 = kernel.load %x[%t, 2] : memref<128x4xf32>
  %a3 = kernel.load %x[%t, 3] : memref<128x4xf32>
  mma.fence_proxy_async
  kernel.barrier
  mma.wgmma_fence
  mma.wgmma_rs m64n8k8 overwrite %acc, a(%a0, %a1, %a2, %a3), %b[0, 8] : memref<4xf32>, memref<8x32xf32, #mma.swizzle<128>, #kernel.smem>
  mma.wgmma_commit
  mma.wgmma_wait 0
  %d0 = kernel.load %acc[0] : memref<4xf32>
  kernel.store %d0, %out[%t, 0] : memref<128x4xf32>
  %d1 = kernel.load %acc[1] : memref<4xf32>
  kernel.store %d1, %out[%t, 1] : memref<128x4xf32>
  %d2 = kernel.load %acc[2] : memref<4xf32>
  kernel.store %d2, %out[%t, 2] : memref<128x4xf32>
  %d3 = kernel.load %acc[3] : memref<4xf32>
  kernel.store %d3, %out[%t, 3] : memref<128x4xf32>
}
"""


def test_wgmma_rs_gathers_a_from_the_fragment_layout():
    """Thread t of warp w holds A's rows 16w + g (+ 8) at k = t % 4 (+ 4) (the mma.sync A
    fragment); B is columns 8..15 of the swizzled buffer; D comes back in the wgmma accumulator
    layout. Small integers: every product and sum exact."""
    rng = np.random.default_rng(5)
    x = rng.integers(-4, 5, (128, 4)).astype(np.float32)
    y = rng.integers(-4, 5, (8, 32)).astype(np.float32)
    out = np.full((128, 4), np.nan, np.float32)
    exec_kernel.run_kernel(_kernel(WGMMA_RS), [x, y, out])
    tid = np.arange(128)
    w, g, t = tid // 32, tid % 32 // 4, tid % 4
    a = np.zeros((64, 8))
    for i, (dr, dk) in enumerate(((0, 0), (8, 0), (0, 4), (8, 4))):
        a[16 * w + g + dr, t + dk] = x[:, i]
    d = a @ y[:, 8:16].astype(np.float64).T
    for i in range(4):
        h, e = divmod(i, 2)
        np.testing.assert_array_equal(out[:, i], d[16 * w + 8 * h + g, 2 * t + e])


def test_wgmma_rs_reads_registers_only_after_a_fence():
    text = WGMMA_RS.replace("  mma.wgmma_fence\n", "", 1)
    rng = np.random.default_rng(5)
    x, y = rng.standard_normal((128, 4)).astype(np.float32), rng.standard_normal((8, 32)).astype(np.float32)
    with pytest.raises(ValueError, match="no mma.wgmma_fence since its accumulators were last accessed"):
        exec_kernel.run_kernel(_kernel(text), [x, y, np.zeros((128, 4), np.float32)])
