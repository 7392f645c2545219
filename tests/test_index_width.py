"""Index arithmetic at any size: widen-indices marks the kernels whose indices can pass 2^31 - 1,
the printer prints those as `long long`, small kernels keep `int`, materialize spreads more
blocks than grid x holds over x and y, and grids past 65535 in y/z are flattened into x.

The programs just past the boundaries (2^31 + 1 and 2^31 + 256 elements) are compiled here from
torch IR (no tensor is allocated) down to CUDA that nvcc compiles; tests/test_reliability_gpu.py
runs them on the GPU."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from xdsl.passes import PassPipeline

from dpl.backend.cuda_printer import CudaPrintError, print_cuda, print_manifest
from dpl.dialects import kernel as K
from dpl.dialects import make_context
from dpl.dialects.parsing import parse_module
from dpl.frontend import capture_expression
from dpl.interpreters import exec_kernel, exec_tile
from dpl.transforms import all_passes
from dpl.transforms.kernel import outline_kernels as materialize
from dpl.transforms.kernel.widen_indices import IndexRanges, WidenIndices
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

ROOT = Path(__file__).resolve().parent.parent
NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)
LIMITS = {"x": 2**31 - 1, "y": 65535, "z": 65535}


def torch_ir(op: str, in_shape: str, out_shape: str) -> str:
    return (
        f"func.func @main(%x: tensor<{in_shape}xf32>) -> tensor<{out_shape}xf32> {{\n"
        f"  %r = torch.{op} : (tensor<{in_shape}xf32>) -> tensor<{out_shape}xf32>\n"
        f"  func.return %r : tensor<{out_shape}xf32>\n}}\n"
    )


def to_kernels(text: str):
    module = parse_module(make_context(), text, "big.mlir")
    run_pipeline(module, IR_PIPELINES["kernel"])
    return module, [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]


def nvcc_compiles(source: str, tmp_path: Path) -> None:
    if NVCC is None:
        return
    cu = tmp_path / "k.cu"
    cu.write_text(source)
    result = subprocess.run([NVCC, "-arch=sm_90", "-c", "-o", str(tmp_path / "k.o"), str(cu)],
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr + source


BIG = [
    ("relu %x", "2147483649", "2147483649"),  # 2^31 + 1: a ragged size
    ("relu %x", "2147483904", "2147483904"),  # 2^31 + 256: the size that crashed (issue 20)
    ("softmax %x {dim = 1}", "2097153x1024", "2097153x1024"),  # 2^31 + 1024, rows of 1024
]


@pytest.mark.parametrize("op,shape,out", BIG, ids=[s for _, s, _ in BIG])
def test_past_2_31_elements_compiles_to_64_bit_indices(op, shape, out, tmp_path):
    module, funcs = to_kernels(torch_ir(op, shape, out))
    assert funcs and all(f.index_bitwidth == 64 for f in funcs)
    for f in funcs:
        for dim, extent in zip("xyz", f.grid_extents):
            assert extent <= LIMITS[dim], f"@{f.sym_name.data}: grid {dim} = {extent}"
    source = print_cuda(module)
    assert "long long" in source and "int " not in source.replace("unsigned int", "")
    nvcc_compiles(source, tmp_path)


def test_small_kernels_keep_32_bit_indices(pass_log):
    prog = capture_expression("torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))")
    module = prog.module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"])
    funcs = [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]
    assert funcs and all(f.index_bits is None for f in funcs)
    assert "long long" not in print_cuda(module)
    assert "widen-indices: @k_rms_norm: declined: indices stay within" in pass_log.text


def test_lit_cases_log_their_decision(pass_log):
    text = (ROOT / "test/lit/kernel/widen-indices.mlir").read_text()
    module = parse_module(make_context(), text, "widen-indices.mlir")
    WidenIndices().apply(make_context(), module)
    for line in (
        "widen-indices: @k_big: indices reach 2147483900, past 2^31 - 1: 64-bit",
        "widen-indices: @k_stride: indices reach 2148531575, past 2^31 - 1: 64-bit",
        "widen-indices: @k_gather: declined: indices stay within 65538047 (32-bit)",
        "widen-indices: @k_edge: declined: indices stay within 2147483646 (32-bit)",
    ):
        assert line in pass_log.text


def test_index_scalar_of_unknown_range_is_64_bit():
    text = """
kernel.func @k(%x: memref<64xf32>, %n: index) grid [1, 1, 1] block [64, 1, 1] smem 0 {
  %t = kernel.thread_id x
  %i = arith.addi %t, %n : index
  %v = kernel.load %x[%i mod 64] : memref<64xf32>
  kernel.store %v, %x[%t] : memref<64xf32>
}"""
    module = parse_module(make_context(), text, "k.mlir")
    (func,) = [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]
    assert IndexRanges(func).peak > 2**31
    WidenIndices().apply(make_context(), module)
    assert func.index_bitwidth == 64
    manifest = print_manifest(module)
    assert manifest["kernels"][0]["args"][1]["dtype"] == "int64"  # the runtime passes 8 bytes


def test_index_bits_roundtrips_and_is_verified():
    text = "kernel.func @k(%x: memref<4xf32>) grid [1, 1, 1] block [4, 1, 1] smem 0 index_bits 64 {\n}"
    module = parse_module(make_context(), text, "k.mlir")
    module.verify()
    assert "smem 0 index_bits 64 {" in str(module)
    bad = parse_module(make_context(), text.replace("64 {", "16 {"), "k.mlir")
    with pytest.raises(Exception, match="index_bits must be 32 or 64, got 16"):
        bad.verify()


def test_printer_refuses_a_32_bit_kernel_with_a_huge_buffer():
    text = """
kernel.func @k(%x: memref<2147483648xf32>) grid [1, 1, 1] block [1, 1, 1] smem 0 {
}"""
    module = parse_module(make_context(), text, "k.mlir")
    with pytest.raises(CudaPrintError, match="buffer %x has 2147483648 elements, too many for 32-bit"):
        print_cuda(module)


TILE_BLOCKS = """
func.func @main(%x: memref<4x6x8xf64>) -> memref<4x6x8xf64> {
  %y = memref.alloc() : memref<4x6x8xf64>
  tile.kernel @k ins(%x : memref<4x6x8xf64>) outs(%y : memref<4x6x8xf64>) {
    %one = arith.constant 1.0 : f64
    tile.tile (%a0 : 4 = block, %a1 : 6 = block, %a2 : 8 = thread) {
      %v = loop.load %x[%a0, %a1, %a2] : memref<4x6x8xf64>
      %r = arith.addf %v, %one : f64
      loop.store %r, %y[%a0, %a1, %a2] : memref<4x6x8xf64>
    }
  }
  func.return %y : memref<4x6x8xf64>
}
"""


def _materialize_and_compare(text: str) -> K.KernelFuncOp:
    ctx = make_context()
    module = parse_module(ctx, text, "t.mlir")
    x = np.random.default_rng(0).standard_normal((4, 6, 8))
    (want,) = exec_tile.run(module, [x])
    PassPipeline.parse_spec(all_passes(), "materialize").apply(ctx, module)
    module.verify()
    (got,) = exec_kernel.run(module, [x])
    np.testing.assert_array_equal(got, want)
    (func,) = [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]
    return func


def test_a_block_axis_past_grid_y_is_flattened_into_x(monkeypatch):
    """As a batch of 70000 would be on the GPU (grid y/z hold 65535), here with y/z made to
    hold 3: the 4 x 6 blocks become one x index split by div/mod."""
    monkeypatch.setattr(materialize, "MAX_GRID_YZ", 3)
    func = _materialize_and_compare(TILE_BLOCKS)
    assert func.grid_extents == (24, 1, 1)


def test_more_blocks_than_grid_x_holds_spread_over_x_and_y(monkeypatch):
    """As 2^31 + 1 blocks would be on the GPU, here with grid x made to hold 5: 24 blocks run as
    a 5 x 5 grid, the 25th block guarded off."""
    monkeypatch.setattr(materialize, "MAX_GRID_X", 5)
    monkeypatch.setattr(materialize, "MAX_GRID_YZ", 5)
    func = _materialize_and_compare(TILE_BLOCKS)
    assert func.grid_extents == (5, 5, 1)
    assert any(isinstance(op, K.IfOp) for op in func.walk())


def test_a_grid_past_65535_in_y_compiles_within_the_limits(tmp_path):
    """A batched matmul whose batch (70000) would be grid y next to its 2 column tiles (torch IR
    text: nothing is allocated)."""
    text = (
        "func.func @main(%x: tensor<70000x32x8xf32>, %y: tensor<70000x8x128xf32>) -> tensor<70000x32x128xf32> {\n"
        "  %r = torch.matmul %x, %y : (tensor<70000x32x8xf32>, tensor<70000x8x128xf32>) -> tensor<70000x32x128xf32>\n"
        "  func.return %r : tensor<70000x32x128xf32>\n}\n"
    )
    module, funcs = to_kernels(text)
    assert funcs
    for f in funcs:
        for dim, extent in zip("xyz", f.grid_extents):
            assert extent <= LIMITS[dim]
    assert max(f.grid_extents[0] for f in funcs) > 65535
    nvcc_compiles(print_cuda(module), tmp_path)
