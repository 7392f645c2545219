"""The kernel-level NumPy executor (interpreters/exec_kernel.py): the hand-written seed kernels match
NumPy, each SIMT feature (ids, shuffles, masks, strided loops, smem per block, copies) does what
CUDA does, poison and races show, and every valid kernel-IR lit file runs."""

from __future__ import annotations

import math
import re
from pathlib import Path

import numpy as np
import pytest

from dpl.interpreters import exec_kernel
from dpl.interpreters.exec_loop import main_func
from dpl.interpreters.scalar_eval import numpy_dtype
from dpl.dialects import kernel as K
from dpl.dialects import make_context
from dpl.dialects.parsing import parse_module

ROOT = Path(__file__).resolve().parent.parent
LIT_DIRS = [ROOT / "test/lit/dialects/kernel", ROOT / "test/lit/translate"]


def parse(text: str, name: str = "test.mlir"):
    module = parse_module(make_context(), text, name)
    module.verify()
    return module


def kernel_named(module, name: str) -> K.KernelFuncOp:
    for op in module.walk():
        if isinstance(op, K.KernelFuncOp) and op.sym_name.data == name:
            return op
    raise KeyError(name)


def rms_ref(x, w, eps=1e-6):
    x64 = x.astype(np.float64)
    return x64 / np.sqrt((x64**2).mean(-1, keepdims=True) + eps) * w


# Hand-written kernels that rely on the lanes of a warp running converged: roundtrip.mlir's
# RMSNorm has every lane of warp w read acc0_smem[w] before lane 0..31 overwrite it (same value)
# with no barrier or shuffle between. They run with check_races="warp".
WARP_SYNCHRONOUS = {("dialects/kernel/roundtrip.mlir", "k_rms_norm")}


def race_mode(source: str, kernel: str = "k_rms_norm") -> bool | str:
    return "warp" if (source, kernel) in WARP_SYNCHRONOUS else True

RMS_MAIN = """
func.func @main(%x: memref<1x32x2048xT>, %w: memref<2048xT>) -> memref<1x32x2048xT> {
  %o = memref.alloc() : memref<1x32x2048xT>
  kernel.launch @k_rms_norm(%x, %w, %o) : memref<1x32x2048xT>, memref<2048xT>, memref<1x32x2048xT>
  func.return %o : memref<1x32x2048xT>
}
"""


@pytest.mark.parametrize("dtype", ["f32", "f64"])
@pytest.mark.parametrize("source", ["translate/rms_norm.mlir", "dialects/kernel/roundtrip.mlir"])
def test_rms_norm(source: str, dtype: str):
    source_text = (ROOT / "test/lit" / source).read_text()
    kernel = re.search(r"^kernel\.func @k_rms_norm.*?^}$", source_text, re.M | re.S).group(0)
    text = (kernel + RMS_MAIN.replace("xT>", "xf32>")).replace("f32", dtype)
    module = parse(text)
    rng = np.random.default_rng(0)
    np_t = np.float32 if dtype == "f32" else np.float64
    x = rng.standard_normal((1, 32, 2048)).astype(np_t)
    w = rng.standard_normal(2048).astype(np_t)
    (out,) = exec_kernel.run(module, [x, w], check_races=race_mode(source))
    assert out.dtype == np_t
    tol = 1e-5 if dtype == "f32" else 1e-12
    np.testing.assert_allclose(out, rms_ref(x, w), rtol=tol, atol=tol)


def test_warp_synchronous_kernel_is_a_race_between_threads():
    module = parse((ROOT / "test/lit/dialects/kernel/roundtrip.mlir").read_text())
    x = np.random.default_rng(0).standard_normal((1, 32, 2048)).astype(np.float32)
    w = np.ones(2048, np.float32)
    out = np.full_like(x, np.nan)
    with pytest.raises(ValueError, match=r"^'kernel.store' in kernel.func @k_rms_norm: thread 0 of block 0 overwrites shared memory that several threads read with no kernel.barrier between \(a race\)$"):
        exec_kernel.run_kernel(kernel_named(module, "k_rms_norm"), [x, w, out])
    exec_kernel.run_kernel(kernel_named(module, "k_rms_norm"), [x, w, out], check_races="warp")
    np.testing.assert_allclose(out, rms_ref(x, w), rtol=1e-5, atol=1e-5)


def test_relu_matmul():
    module = parse((ROOT / "test/lit/dialects/kernel/roundtrip.mlir").read_text())
    rng = np.random.default_rng(1)
    bias = rng.standard_normal(64).astype(np.float32)
    x = rng.standard_normal((16, 64)).astype(np.float32)
    w = rng.standard_normal((64, 16)).astype(np.float32)
    out = np.full((16, 16), np.nan, np.float32)
    exec_kernel.run_kernel(kernel_named(module, "k_relu_reduce"), [bias, x, w, out])
    ref = np.maximum((x.astype(np.float64) + bias) @ w, 0)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)


def run1(body: str, args: str, buffers: list[np.ndarray], grid="[1, 1, 1]", block="[64, 1, 1]",
         smem=0, **kw):  # fmt: skip
    """Run one kernel whose body and argument list are given."""
    text = f"kernel.func @k({args}) grid {grid} block {block} smem {smem} {{\n{body}\n}}"
    module = parse(text)
    exec_kernel.run_kernel(kernel_named(module, "k"), buffers, **kw)
    return buffers


def test_ids_2d_grid_and_block():
    out = np.full((3, 2, 2, 4, 2), -1, np.int64)  # [by, bx, ty, tx, (lane, warp)]
    body = """
  %bx = kernel.block_id x
  %by = kernel.block_id y
  %tx = kernel.thread_id x
  %ty = kernel.thread_id y
  %lane = kernel.lane_id
  %warp = kernel.warp_id
  %l = arith.index_cast %lane : index to i64
  %w = arith.index_cast %warp : index to i64
  kernel.store %l, %out[%by, %bx, %ty, %tx, 0] : memref<3x2x2x4x2xi64>
  kernel.store %w, %out[%by, %bx, %ty, %tx, 1] : memref<3x2x2x4x2xi64>"""
    run1(body, "%out: memref<3x2x2x4x2xi64>", [out], grid="[2, 3, 1]", block="[4, 2, 1]")
    linear = np.arange(8).reshape(2, 4)
    assert (out[..., 0] == linear & 31).all()
    assert (out[..., 1] == 0).all()


def test_shuffles():
    out = np.full((2, 64), np.nan)
    body = """
  %t = kernel.thread_id x
  %ti = arith.index_cast %t : index to i64
  %v = arith.sitofp %ti : i64 to f64
  %x = kernel.shuffle_xor %v, 5 : f64
  %d = kernel.shuffle_down %v, 3 width 8 : f64
  kernel.store %x, %out[0, %t] : memref<2x64xf64>
  kernel.store %d, %out[1, %t] : memref<2x64xf64>"""
    run1(body, "%out: memref<2x64xf64>", [out])
    t = np.arange(64)
    assert (out[0] == (t ^ 5)).all()
    down = np.where(t % 8 + 3 < 8, t + 3, t)
    assert (out[1] == down).all()


def test_shuffle_in_divergent_warp_raises():
    body = """
  %t = kernel.thread_id x
  %c4 = arith.constant 4 : index
  %lt = arith.cmpi ult, %t, %c4 : index
  %v = kernel.load %x[%t] : memref<64xf64>
  kernel.if %lt {
    %s = kernel.shuffle_xor %v, 1 : f64
    kernel.store %s, %x[%t] : memref<64xf64>
  }"""
    with pytest.raises(ValueError, match=r"^'kernel.shuffle_xor' in kernel.func @k: executed by 4 of the 32 lanes"):
        run1(body, "%x: memref<64xf64>", [np.zeros(64)])


def test_if_else_masks_nest():
    out = np.full(64, np.nan)
    body = """
  %t = kernel.thread_id x
  %c32 = arith.constant 32 : index
  %c8 = arith.constant 8 : index
  %one = arith.constant 1.0 : f64
  %two = arith.constant 2.0 : f64
  %three = arith.constant 3.0 : f64
  %lo = arith.cmpi ult, %t, %c32 : index
  %m = arith.remui %t, %c8 : index
  %c0 = arith.constant 0 : index
  %first = arith.cmpi eq, %m, %c0 : index
  kernel.if %lo {
    kernel.if %first {
      kernel.store %one, %out[%t] : memref<64xf64>
    } else {
      kernel.store %two, %out[%t] : memref<64xf64>
    }
  } else {
    kernel.if %first {
      kernel.store %three, %out[%t] : memref<64xf64>
    }
  }"""
    run1(body, "%out: memref<64xf64>", [out])
    t = np.arange(64)
    ref = np.where(t < 32, np.where(t % 8 == 0, 1.0, 2.0), np.where(t % 8 == 0, 3.0, np.nan))
    np.testing.assert_array_equal(out, ref)


def test_strided_loops_per_thread_bounds_and_accumulators():
    x = np.random.default_rng(2).standard_normal(100)
    out = np.full((4, 16), np.nan)
    # thread t sums x[t], x[t+16], ... below a per-thread bound 100 - t
    body = """
  %t = kernel.thread_id x
  %c100 = arith.constant 100 : index
  %ub = arith.subi %c100, %t : index
  %s, %mx, %mn, %p = kernel.for %i = %t to %ub step 16 -> f64, f64, f64, f64 {
    %v = kernel.load %x[%i] : memref<100xf64>
    kernel.accumulate add %v, max %v, min %v, mul %v : f64, f64, f64, f64
  }
  kernel.store %s, %out[0, %t] : memref<4x16xf64>
  kernel.store %mx, %out[1, %t] : memref<4x16xf64>
  kernel.store %mn, %out[2, %t] : memref<4x16xf64>
  kernel.store %p, %out[3, %t] : memref<4x16xf64>"""
    run1(body, "%x: memref<100xf64>, %out: memref<4x16xf64>", [x, out], block="[16, 1, 1]")
    for t in range(16):
        vals = x[t : 100 - t : 16]
        np.testing.assert_allclose(
            out[:, t], [vals.sum(), vals.max(), vals.min(), vals.prod()], rtol=1e-12
        )


def test_loop_with_no_trips_gives_identity():
    out = np.full(2, np.nan)
    body = """
  %s, %m = kernel.for %i = 5 to 3 step 1 -> f64, f64 {
    %v = kernel.load %out[0] : memref<2xf64>
    kernel.accumulate add %v, max %v : f64, f64
  }
  %c0 = arith.constant 0 : index
  %t = kernel.thread_id x
  %first = arith.cmpi eq, %t, %c0 : index
  kernel.if %first {
    kernel.store %s, %out[0] : memref<2xf64>
    kernel.store %m, %out[1] : memref<2xf64>
  }"""
    run1(body, "%out: memref<2xf64>", [out])
    assert out[0] == 0.0 and out[1] == -np.inf


def test_smem_is_per_block():
    out = np.full((2, 32), np.nan)
    body = """
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %c100 = arith.constant 100 : index
  %c1 = arith.constant 1 : index
  %s = kernel.smem : memref<32xf64, #kernel.smem>
  %bb = arith.muli %b, %c100 : index
  %v = arith.addi %bb, %t : index
  %vi = arith.index_cast %v : index to i64
  %vf = arith.sitofp %vi : i64 to f64
  kernel.store %vf, %s[%t] : memref<32xf64, #kernel.smem>
  kernel.barrier
  %r = kernel.load %s[(%t + 1) mod 32] : memref<32xf64, #kernel.smem>
  kernel.store %r, %out[%b, %t] : memref<2x32xf64>"""
    run1(body, "%out: memref<2x32xf64>", [out], grid="[2, 1, 1]", block="[32, 1, 1]")
    t = np.arange(32)
    np.testing.assert_array_equal(out, [(t + 1) % 32, 100 + (t + 1) % 32])


SMEM_EXCHANGE = """
  %t = kernel.thread_id x
  %s = kernel.smem : memref<64xf64, #kernel.smem>
  %v = kernel.load %x[%t] : memref<64xf64>
  kernel.store %v, %s[%t] : memref<64xf64, #kernel.smem>
  SYNC
  %r = kernel.load %s[(%t floordiv 32) * 32 + (%t + 1) mod 32] : memref<64xf64, #kernel.smem>
  kernel.store %r, %y[%t] : memref<64xf64>"""


def test_smem_race_without_barrier_raises():
    args = "%x: memref<64xf64>, %y: memref<64xf64>"
    x, y = np.arange(64.0), np.zeros(64)
    race = SMEM_EXCHANGE.replace("SYNC", "")
    with pytest.raises(ValueError, match=r"^'kernel.load' in kernel.func @k: thread 0 of block 0 reads shared memory that thread 1 of block 0 wrote with no kernel.barrier between \(a race\)$"):
        run1(race, args, [x, y])
    t = np.arange(64)
    ref = t // 32 * 32 + (t + 1) % 32
    for mode in ("warp", False):  # lanes of one warp taken as converged / no checks
        y[:] = 0
        run1(race, args, [x, y], check_races=mode)
        np.testing.assert_array_equal(y, ref)
    with pytest.raises(ValueError, match=r"reads shared memory that warp 1 of block 0 wrote"):
        run1(race.replace("(%t floordiv 32) * 32 + (%t + 1) mod 32", "(%t + 32) mod 64"), args,
             [x, y], check_races="warp")  # fmt: skip
    for sync in ("kernel.barrier", "%sh = kernel.shuffle_xor %v, 1 : f64"):  # both order lanes
        y[:] = 0
        run1(SMEM_EXCHANGE.replace("SYNC", sync), args, [x, y])
        np.testing.assert_array_equal(y, ref)


def test_write_after_read_race_raises():
    body = """
  %t = kernel.thread_id x
  %z = arith.constant 0.0 : f64
  %s = kernel.smem : memref<64xf64, #kernel.smem>
  kernel.store %z, %s[%t] : memref<64xf64, #kernel.smem>
  kernel.barrier
  %r = kernel.load %s[(%t + 32) mod 64] : memref<64xf64, #kernel.smem>
  %v = kernel.load %x[%t] : memref<64xf64>
  kernel.store %v, %s[%t] : memref<64xf64, #kernel.smem>
  kernel.store %r, %x[%t] : memref<64xf64>"""
    with pytest.raises(ValueError, match=r"thread 0 of block 0 overwrites shared memory that thread 32 of block 0 read"):
        run1(body, "%x: memref<64xf64>", [np.ones(64)])


def test_conflicting_stores_raise():
    body = """
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<32xf64>
  %c0 = arith.constant 0 : index
  kernel.store %v, %y[%c0] : memref<1xf64>"""
    args = "%x: memref<32xf64>, %y: memref<1xf64>"
    with pytest.raises(ValueError, match="several threads store different values"):
        run1(body, args, [np.arange(32.0), np.zeros(1)], block="[32, 1, 1]")
    y = np.zeros(1)
    run1(body, args, [np.full(32, 7.0), y], block="[32, 1, 1]")  # same value: benign
    assert y[0] == 7.0


def test_barrier_in_divergent_code_raises():
    body = """
  %t = kernel.thread_id x
  %c4 = arith.constant 4 : index
  %lt = arith.cmpi ult, %t, %c4 : index
  kernel.if %lt {
    kernel.barrier
  }"""
    with pytest.raises(ValueError, match=r"'kernel.barrier' in kernel.func @k: reached by 4 of the 32 threads of block 0"):
        run1(body, "%x: memref<32xf64>", [np.zeros(32)], block="[32, 1, 1]")


def test_out_of_bounds_load_raises_but_masked_threads_do_not():
    body = """
  %t = kernel.thread_id x
  %c31 = arith.constant 31 : index
  %ok = arith.cmpi ult, %t, %c31 : index
  kernel.if %ok {
    %v = kernel.load %x[%t + 1] : memref<32xf64>
    kernel.store %v, %y[%t] : memref<32xf64>
  }
  %w = kernel.load %x[%t + 1] : memref<32xf64>"""
    with pytest.raises(ValueError, match=r"^'kernel.load' in kernel.func @k: thread 31 of block 0 indexes \[32\] outside shape \[32\]$"):
        run1(body, "%x: memref<32xf64>, %y: memref<32xf64>", [np.zeros(32), np.zeros(32)],
             block="[32, 1, 1]")  # fmt: skip


def test_masked_load_is_zero_where_off_and_reads_nothing_there():
    """`kernel.load ... if %ok`: threads with the mask off get 0 and their index is not checked
    (it may lie outside the buffer); threads with it on read."""
    body = """
  %t = kernel.thread_id x
  %c31 = arith.constant 31 : index
  %ok = arith.cmpi ult, %t, %c31 : index
  %v = kernel.load %x[%t + 1] if %ok : memref<32xf64>
  kernel.store %v, %y[%t] : memref<32xf64>"""
    x, y = np.arange(1.0, 33.0), np.full(32, np.nan)
    run1(body, "%x: memref<32xf64>, %y: memref<32xf64>", [x, y], block="[32, 1, 1]")
    np.testing.assert_array_equal(y, np.concatenate([x[1:], [0.0]]))


def test_cp_async_vector_copy_and_alloca():
    x = np.arange(64, dtype=np.float32).reshape(4, 16)
    out = np.full((4, 16), np.nan, np.float32)
    # 16 threads; each cp.async moves 16 bytes (4 floats) of x into smem; then each thread
    # keeps a private 4-element register copy of its row chunk and writes it back doubled
    body = """
  %t = kernel.thread_id x
  %s = kernel.smem : memref<4x16xf32, #kernel.smem>
  %r = kernel.alloca : memref<4xf32>
  %two = arith.constant 2.0 : f32
  kernel.cp_async %s[%t floordiv 4, (%t mod 4) * 4], %x[%t floordiv 4, (%t mod 4) * 4] bytes 16 : memref<4x16xf32, #kernel.smem>, memref<4x16xf32>
  kernel.cp_async_commit
  kernel.cp_async_wait 0
  kernel.barrier
  kernel.for %j = 0 to 4 step 1 unroll {
    %v = kernel.load %s[%j, %t] : memref<4x16xf32, #kernel.smem>
    %d = arith.mulf %v, %two : f32
    kernel.store %d, %r[%j] : memref<4xf32>
  }
  kernel.for %j = 0 to 4 step 1 {
    %v = kernel.load %r[%j] : memref<4xf32>
    kernel.store %v, %out[%j, %t] : memref<4x16xf32>
  }"""
    run1(body, "%x: memref<4x16xf32>, %out: memref<4x16xf32>", [x, out], block="[16, 1, 1]")
    np.testing.assert_array_equal(out, 2 * x)


def test_tma_kernel_scales_rows():
    module = parse((ROOT / "test/lit/translate/tma.mlir").read_text())
    x = np.random.default_rng(3).standard_normal((64, 1024)).astype(np.float32)
    out = np.full((64, 1024), np.nan, np.float32)
    exec_kernel.run_kernel(kernel_named(module, "k_tma_scale"), [x, out])
    np.testing.assert_array_equal(out, 2 * x)


MULTI = """
kernel.func @k_scale(%x: memref<8x8xf64>, %y: memref<8x8xf64>) grid [8, 1, 1] block [8, 1, 1] smem 0 {
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %three = arith.constant 3.0 : f64
  %v = kernel.load %x[%b, %t] : memref<8x8xf64>
  %s = arith.mulf %v, %three : f64
  kernel.store %s, %y[%b, %t] : memref<8x8xf64>
}
kernel.func @k_addT(%x: memref<8x8xf64>, %y: memref<8x8xf64>, %z: memref<8x8xf64>) grid [1, 1, 1] block [8, 8, 1] smem 0 {
  %i = kernel.thread_id y
  %j = kernel.thread_id x
  %a = kernel.load %x[%i, %j] : memref<8x8xf64>
  %b = kernel.load %y[%j, %i] : memref<8x8xf64>
  %s = arith.addf %a, %b : f64
  kernel.store %s, %z[%i, %j] : memref<8x8xf64>
}
func.func @main(%x: memref<8x8xf64>) -> (memref<8x8xf64>, memref<8x8xf64>) {
  %t = memref.alloc() : memref<8x8xf64>
  %z = memref.alloc() : memref<8x8xf64>
  kernel.launch @k_scale(%x, %t) : memref<8x8xf64>, memref<8x8xf64>
  kernel.launch @k_addT(%x, %t, %z) : memref<8x8xf64>, memref<8x8xf64>, memref<8x8xf64>
  func.return %z, %t : memref<8x8xf64>, memref<8x8xf64>
}
"""


def test_multi_launch_with_intermediate():
    x = np.random.default_rng(4).standard_normal((8, 8))
    z, t = exec_kernel.run(parse(MULTI), [x])
    np.testing.assert_allclose(t, 3 * x)
    np.testing.assert_allclose(z, x + 3 * x.T)


def test_unwritten_output_element_stays_poisoned():
    text = """
kernel.func @k_skip(%x: memref<4xf32>, %y: memref<4xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %c2 = arith.constant 2 : index
  %keep = arith.cmpi ne, %t, %c2 : index
  kernel.if %keep {
    %v = kernel.load %x[%t] : memref<4xf32>
    kernel.store %v, %y[%t] : memref<4xf32>
  }
}
func.func @main(%x: memref<4xf32>) -> memref<4xf32> {
  %y = memref.alloc() : memref<4xf32>
  kernel.launch @k_skip(%x, %y) : memref<4xf32>, memref<4xf32>
  func.return %y : memref<4xf32>
}
"""
    x = np.arange(4.0)
    (y,) = exec_kernel.run(parse(text), [x])
    assert np.isnan(y[2]) and (y[[0, 1, 3]] == x[[0, 1, 3]]).all()
    with pytest.raises(AssertionError):
        np.testing.assert_allclose(y, x)


def test_unsupported_op_is_one_line_error():
    body = """
  %t = kernel.thread_id x
  %v = kernel.load %x[%t] : memref<32xi32>
  %n = math.ctpop %v : i32
  kernel.store %n, %x[%t] : memref<32xi32>"""
    with pytest.raises(ValueError, match=r"^the kernel executor does not support 'math.ctpop' \(in kernel.func @k\)$"):
        run1(body, "%x: memref<32xi32>", [np.zeros(32, np.int32)], block="[32, 1, 1]")


def test_buffer_shape_mismatch_raises():
    body = "  %t = kernel.thread_id x"
    with pytest.raises(ValueError, match=r"argument #0 must have shape \(32,\)"):
        run1(body, "%x: memref<32xf64>", [np.zeros(16)])


# ---------------------------------------------------------------------------------------------
# Every valid kernel-IR lit file runs


def _valid_kernel_files() -> list[Path]:
    files = []
    for d in LIT_DIRS:
        for path in sorted(d.glob("*.mlir")):
            text = path.read_text()
            runs = [line for line in text.splitlines() if "RUN:" in line]
            if any("not " in r or "--verify-diagnostics" in r for r in runs):
                continue
            if "kernel.func" in text:
                files.append(path)
    return files


def _random(shape, dtype: np.dtype, rng) -> np.ndarray:
    if np.issubdtype(dtype, np.floating):
        return rng.standard_normal(shape).astype(dtype)
    return rng.integers(0, 4, shape).astype(dtype)


FILES = _valid_kernel_files()


def _relu_reduce_ref(b):
    bias, x, w = b[0], b[1], b[2]
    return {3: np.maximum((x + bias) @ w, 0)}


def _atomic_ref(b):
    """Every thread's add, then every thread's max (the executor runs threads in lockstep)."""
    x, y = b[0], b[1].copy()
    t = np.arange(64)
    np.add.at(y, (t // 16, t % 4), x)
    np.maximum.at(y, (t // 16, t % 4), x)
    return {1: y}


def _atomic_i64_ref(b):
    """Every thread's 64-bit add into y[t % 4], then every thread's max."""
    x, y = b[0], b[1].copy()
    t = np.arange(64)
    np.add.at(y, t % 4, x)
    np.maximum.at(y, t % 4, x)
    return {1: y}


def _f64_ops_ref(b):
    x = b[0]
    erf = np.vectorize(math.erf)
    mx = x.max(axis=1, keepdims=True)
    mn = np.abs(x).min(axis=1, keepdims=True)
    col = np.broadcast_to(np.arange(256), x.shape)
    er = erf(np.tanh(np.exp(x - mx)))
    ab1 = mn + 1
    pw = np.sin(np.cos(np.log(ab1))) ** 0.5
    mi = np.minimum(-np.sqrt(pw * er + 1) / ab1, x)
    sel = np.where(x > mn, mi, er)
    r = col % 2
    u = (col // 2) * 2 + r - r
    first = col % 32 == 0  # lane = the linear thread index tx + 32 * ty, mod 32
    return {1: sel + u, 2: np.where(first, u, r)}


def _scalar_math_ref(b):
    x, y = b[0], b[1]
    with np.errstate(all="ignore"):
        v = np.trunc(np.ceil(np.floor(np.arctanh(np.arccosh(np.arcsinh(np.log1p(np.expm1(
            np.round(np.fmod(x, y))))))))))
    return {2: v, 3: (x < 0) | (y < 0)}


def _collapsed_index_ref(b):
    x, y, z = b
    out = y.reshape(16, 512).copy()
    t = np.arange(256)
    out[:, 256:] = x.reshape(16, 512)[:, :256]
    out[:, :256] = z[:, t // 8, t % 4]
    return {1: out.reshape(16, 64, 8)}


#: What each runnable kernel of the kernel-IR lit files computes, from its (float64) arguments:
#: {argument index: expected value after the kernel}. A new kernel in those files needs an entry.
def _masked_load_ref(x: np.ndarray) -> np.ndarray:
    y = np.zeros((64, 8), x.dtype)
    y[:37, :4] = x[:, :4]
    y[:37, 4:] = x[:, 4:5]
    return y


REFERENCES = {
    ("dialects/kernel/roundtrip.mlir", "k_rms_norm"): lambda b: {2: rms_ref(b[0], b[1])},
    ("translate/rms_norm.mlir", "k_rms_norm"): lambda b: {2: rms_ref(b[0], b[1])},
    ("dialects/kernel/roundtrip.mlir", "k_relu_reduce"): _relu_reduce_ref,
    ("dialects/kernel/launch.mlir", "k_copy"): lambda b: {1: b[0]},
    ("dialects/kernel/launch.mlir", "k_flat"): lambda b: {0: b[0]},
    ("dialects/kernel/launch.mlir", "k_rows"): lambda b: {0: b[0]},
    ("dialects/kernel/vector.mlir", "k_vec"): lambda b: {1: b[0][:, ::-1]},
    ("dialects/kernel/masked-load.mlir", "k_masked"): lambda b: {1: _masked_load_ref(b[0])},
    ("translate/atomic.mlir", "k_atomic"): _atomic_ref,
    ("translate/atomic.mlir", "k_atomic_i64"): _atomic_i64_ref,
    ("translate/f64_ops.mlir", "k_f64_ops"): _f64_ops_ref,
    ("translate/tma.mlir", "k_tma_scale"): lambda b: {1: 2 * b[0]},
    ("translate/scalar_math.mlir", "k_scalar_math"): _scalar_math_ref,
    ("translate/collapsed_index.mlir", "k_rows"): _collapsed_index_ref,
    ("translate/mma_sync.mlir", "k_mma_sync"): lambda b: {2: b[0] @ b[1].T},
    ("translate/wgmma.mlir", "k_wgmma_gemm"): lambda b: {2: b[0] @ b[1].T},
}
#: What each lit file's @main returns, from its inputs.
MAIN_REFERENCES = {"dialects/kernel/launch.mlir": lambda ins: [ins[0]]}


def _assert_matches(out: np.ndarray, want: np.ndarray, what: str) -> None:
    """Per element: exact for integers, |out - want| <= atol + rtol * |want| for floats (rtol 1e-5
    in float32, 1e-12 in float64; atol the same fraction of the output's largest magnitude)."""
    assert out.shape == want.shape, f"{what}: shape {out.shape}, expected {want.shape}"
    if not np.issubdtype(out.dtype, np.floating):
        np.testing.assert_array_equal(out, want, err_msg=what)
        return
    tol = 1e-5 if out.dtype == np.float32 else 1e-12
    scale = float(np.nanmax(np.abs(want))) if np.isfinite(want).any() else 1.0
    np.testing.assert_allclose(out, want, rtol=tol, atol=tol * scale, err_msg=what)


def _wide(x: np.ndarray) -> np.ndarray:
    return x.astype(np.float64) if np.issubdtype(x.dtype, np.floating) else x.copy()


@pytest.mark.parametrize("path", FILES, ids=lambda p: f"{p.parent.name}/{p.name}")
def test_lit_kernels_run(path: Path):
    """Every kernel (and @main) of the valid kernel-IR lit files runs on random inputs and gives
    what REFERENCES says it computes."""
    rng = np.random.default_rng(5)
    source = str(path.relative_to(ROOT / "test/lit"))
    ran = 0
    for text in re.split(r"^// -----$", path.read_text(), flags=re.M):
        module = parse(text, path.name)
        for op in module.walk():
            if isinstance(op, K.KernelFuncOp):
                name = op.sym_name.data
                reference = REFERENCES.get((source, name))
                assert reference is not None, f"{source}: add what @{name} computes to REFERENCES"
                buffers = []
                for arg in op.args:
                    t = arg.type
                    dtype = numpy_dtype(t.element_type if hasattr(t, "element_type") else t)
                    shape = tuple(t.get_shape()) if hasattr(t, "get_shape") else ()
                    buffers.append(_random(shape, dtype, rng))
                expected = reference([_wide(b) for b in buffers])
                exec_kernel.run_kernel(op, buffers, check_races=race_mode(source, name))
                for i, want in expected.items():
                    _assert_matches(buffers[i], np.asarray(want), f"{source} @{name} argument #{i}")
                ran += 1
        if any(op.sym_name.data == "main" for op in module.ops if hasattr(op, "sym_name")):
            main = main_func(module)
            inputs = [
                _random(tuple(a.type.get_shape()), numpy_dtype(a.type.element_type), rng)
                for a in main.body.block.args
            ]
            outs = exec_kernel.run(module, inputs)
            wants = MAIN_REFERENCES[source]([_wide(x) for x in inputs])
            assert len(outs) == len(wants)
            for i, (out, want) in enumerate(zip(outs, wants)):
                _assert_matches(out, np.asarray(want), f"{source} @main result #{i}")
    assert ran > 0


def test_float4_vector_accesses():
    module = parse((ROOT / "test/lit/dialects/kernel/vector.mlir").read_text())
    x = np.random.default_rng(6).standard_normal((4, 64)).astype(np.float32)
    y = np.full((4, 64), np.nan, np.float32)
    exec_kernel.run_kernel(kernel_named(module, "k_vec"), [x, y])
    np.testing.assert_array_equal(y, x[:, ::-1])


def test_misaligned_float4_raises():
    body = """
  %t = kernel.thread_id x
  %v = kernel.load %x[%t * 4 + 2] vector 4 : memref<64xf32>
  kernel.store %v, %x[%t * 4] vector 4 : memref<64xf32>"""
    with pytest.raises(ValueError, match=r"thread 0 of block 0 moves a 4-vector at \[2\], which is misaligned"):
        run1(body, "%x: memref<64xf32>", [np.zeros(64, np.float32)], block="[15, 1, 1]")


def test_atomic_add_and_max_fold_every_thread():
    module = parse((ROOT / "test/lit/translate/atomic.mlir").read_text())
    x = np.random.default_rng(7).standard_normal(64).astype(np.float32)
    y = np.zeros((4, 4), np.float32)
    exec_kernel.run_kernel(kernel_named(module, "k_atomic"), [x, y])
    t = np.arange(64)
    ref = np.zeros((4, 4))
    np.add.at(ref, (t // 16, t % 4), x.astype(np.float64))
    np.maximum.at(ref, (t // 16, t % 4), x.astype(np.float64))
    np.testing.assert_allclose(y, ref, rtol=1e-5, atol=1e-6)
    y = np.full((4, 4), np.nan, np.float32)  # poison stays poison
    exec_kernel.run_kernel(kernel_named(module, "k_atomic"), [x, y])
    assert np.isnan(y).all()


GLOBAL_EXCHANGE = """
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %v = kernel.load %x[%b, %t] : memref<2x64xf64>
  kernel.store %v, %y[%b, %t] : memref<2x64xf64>
  kernel.barrier
  %r = kernel.load %y[OTHER] : memref<2x64xf64>
  kernel.store %r, %x[%b, %t] : memref<2x64xf64>"""


def test_global_memory_races_between_blocks_but_not_across_a_barrier_in_a_block():
    args = "%x: memref<2x64xf64>, %y: memref<2x64xf64>"
    x, y = np.arange(128.0).reshape(2, 64), np.zeros((2, 64))
    # another warp of the same block, after a barrier: ordered
    run1(GLOBAL_EXCHANGE.replace("OTHER", "%b, (%t + 32) mod 64"), args, [x, y], grid="[2, 1, 1]")
    t = np.arange(64)
    np.testing.assert_array_equal(x, np.arange(128.0).reshape(2, 64)[:, (t + 32) % 64])
    # another block: never ordered within a launch
    with pytest.raises(ValueError, match=r"^'kernel.load' in kernel.func @k: thread 0 of block 0 reads global memory that block 1 wrote with no kernel.barrier between \(a race\)$"):
        run1(GLOBAL_EXCHANGE.replace("OTHER", "1 - %b, %t"), args, [x, y], grid="[2, 1, 1]")
    # in place by another block: read then overwritten
    body = """
  %b = kernel.block_id x
  %t = kernel.thread_id x
  %r = kernel.load %x[1 - %b, %t] : memref<2x64xf64>
  kernel.store %r, %x[%b, %t] : memref<2x64xf64>"""
    with pytest.raises(ValueError, match=r"thread 0 of block 0 overwrites global memory that block 1 read"):
        run1(body, args, [x, y], grid="[2, 1, 1]")


def test_dynamic_smem_views_alias_and_start_poisoned():
    out = np.zeros((2, 16))
    body = """
  %t = kernel.thread_id x
  %a = kernel.smem dynamic offset 0 : memref<16xf64, #kernel.smem>
  %b = kernel.smem dynamic offset 64 : memref<8xf64, #kernel.smem>
  %c8 = arith.constant 8 : index
  %lo = arith.cmpi ult, %t, %c8 : index
  %v = kernel.load %x[%t] : memref<16xf64>
  kernel.if %lo {
    kernel.store %v, %b[%t] : memref<8xf64, #kernel.smem>
  }
  kernel.barrier
  %r = kernel.load %a[%t] : memref<16xf64, #kernel.smem>
  kernel.store %r, %out[0, %t] : memref<2x16xf64>
  %s = arith.mulf %v, %v : f64
  kernel.store %s, %out[1, %t] : memref<2x16xf64>"""
    x = np.arange(16.0)
    run1(body, "%x: memref<16xf64>, %out: memref<2x16xf64>", [x, out], block="[16, 1, 1]", smem=128)
    assert np.isnan(out[0, :8]).all()  # never written: poisoned
    np.testing.assert_array_equal(out[0, 8:], x[:8])  # %b is %a[8:]
    np.testing.assert_array_equal(out[1], x * x)


def test_scalar_kernel_arguments():
    out = np.zeros(8)
    body = """
  %t = kernel.thread_id x
  %i = arith.addi %t, %n : index
  %ii = arith.index_cast %i : index to i64
  %f = arith.sitofp %ii : i64 to f64
  %g = arith.mulf %f, %scale : f64
  kernel.store %g, %out[%t] : memref<8xf64>"""
    run1(body, "%n: index, %scale: f64, %out: memref<8xf64>", [3, 0.5, out], block="[8, 1, 1]")
    np.testing.assert_array_equal(out, (np.arange(8) + 3) * 0.5)


def test_scalar_eval_index_constant_zero():
    # an IntegerAttr 0 is falsy: the evaluator must not mistake it for a missing value
    from xdsl.dialects import arith
    from xdsl.dialects.builtin import IndexType

    from dpl.interpreters.scalar_eval import eval_op

    (zero,) = eval_op(arith.ConstantOp.from_int_and_width(0, IndexType()), [])
    assert zero == 0


def test_unravel_many_column_indices():
    """exec_kernel._unravel on an (N, 1) array past NumPy's 8192-element iterator buffer: the
    coordinates of each index, as a 1-D unravel_index gives them (numpy/numpy#31980 returns
    repeated ones there; a 4-byte cp.async copy by 8200 threads lost every column past 1024)."""
    flat = np.arange(10_000, dtype=np.int64)[:, None]
    got = exec_kernel._unravel(flat, (100, 2, 50))
    want = np.unravel_index(np.arange(10_000), (100, 2, 50))
    assert all(g.shape == (10_000, 1) for g in got)
    for g, w in zip(got, want):
        np.testing.assert_array_equal(g[:, 0], w)
