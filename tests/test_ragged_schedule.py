"""Issue 13: the default schedule on ragged, odd and prime sizes keeps meaning end to end.

Each program is captured in float64, scheduled by the default kernel pipeline (pad-matmul's
masked tiles, flat pointwise launches, a contraction kept out of a reduction) and run on the
kernel executor (lockstep SIMT, bounds and race checks), against PyTorch in float64."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from xdsl.dialects.builtin import IntegerAttr
from xdsl.passes import PassPipeline

from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import kernel as K
from dpl.dialects import make_context, tile
from dpl.dialects.parsing import parse_module
from dpl.frontend import capture_expression
from dpl.interpreters import exec_kernel, exec_tile
from dpl.transforms import all_passes
from dpl.interpreters.exec_loop import main_func
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

from conftest import lit_cases, same_on_tile_executor
from test_cuda_compile import NVCC, nvcc_arch

CASES = {
    # M, N, K none a multiple of the 64 x 64 x 32 tile (pad-matmul: 128 x 64 x 64, masked)
    "matmul_ragged": "torch.randn(67,45) @ torch.randn(45,37)",
    # A stored transposed (a.T @ b), K prime
    "matmul_tn_prime": "torch.randn(37,70).T @ torch.randn(37,33)",
    # x @ W^T + b then GELU (the epilogue), sizes below one tile
    "linear_gelu_small": "torch.nn.functional.gelu(torch.nn.functional.linear("
                         "torch.randn(5,39), torch.randn(21,39), torch.randn(21)))",
    # a batched matmul, B transposed
    "bmm_nt": "torch.randn(3,19,40) @ torch.randn(3,23,40).transpose(1,2)",
    # a batched a.T @ b over K = 32, one k-tile: not chunked, staged once (M ragged)
    "bmm_tn_one_k_tile": "torch.randn(3,32,70).transpose(1,2) @ torch.randn(3,32,36)",
    # sum over a linear's outputs: a matmul kernel, then a row sum
    "linear_sum": "(torch.randn(9,70) @ torch.randn(70,41)).sum(dim=1)",
    # pointwise on a prime size: flat threads over blocks of 256
    "pointwise_prime": "torch.nn.functional.silu(torch.randn(3,257)) * torch.randn(3,257)",
    # softmax over a dim of 3 (fuse-loops recomputes the short max and sum: one kernel)
    "softmax_short_dim": "torch.softmax(torch.randn(5,3,37), dim=1)",
    # a column axis of 4 continued by one of 7 (-> 8, masked) and of 8 by 8: warps of 32 columns
    "colsum_narrow_columns": "torch.randn(3,40,7,4).sum(dim=1)",
    "softmax_narrow_columns": "torch.softmax(torch.randn(2,37,8,8), dim=1)",
    # a sum over two leading dims (one collapsed loop, %r floordiv 9, %r mod 9): a column reduction
    "colsum_leading_dims": "torch.randn(4,9,3,37).sum(dim=(0,1))",
    # a column axis of 7 (-> 8, one thread in 8 idle) and the 512 before it: one axis of 3584
    # (merge-columns, WASTE_MIN), indexed back with floordiv / mod
    "colsum_seven_columns": "torch.randn(3,40,512,7).sum(dim=1)",
    # a column axis of 5 whose merge with the 7 before it would idle more (35 -> 64): 5 -> 8,
    # masked, continued by the 7 (-> 8): warps of 4 x 8 threads
    "amax_padded_narrow_columns": "torch.randn(3,40,7,5).amax(dim=1)",
    # a batched vector-matrix product (M = 1, B stored [K, N]): a column reduction along N
    "bmm_vecmat": "torch.randn(3,1,40) @ torch.randn(3,40,45)",
    # one vector-matrix product over a long K (split over blocks, atomics), and x @ W^T at M = 1
    "vecmat_long_k": "torch.randn(1,700) @ torch.randn(700,45)",
    "linear_one_row": "torch.nn.functional.linear(torch.randn(1,300), torch.randn(37,300), torch.randn(37))",
}


@pytest.mark.parametrize("name", list(CASES))
def test_schedule_keeps_meaning_on_ragged_sizes(name: str):
    prog = capture_expression(CASES[name], dtype=torch.float64)
    module = prog.module
    run_pipeline(module, IR_PIPELINES["kernel"])
    assert any(isinstance(op, K.KernelFuncOp) for op in module.walk())
    rng = np.random.default_rng(0)
    args = main_func(module).body.block.args
    inputs = [rng.standard_normal(tuple(a.type.get_shape())) for a in args]
    outs = exec_kernel.run(module, inputs)
    ref = prog.fn(*[torch.from_numpy(x) for x in inputs[: prog.num_inputs]])
    np.testing.assert_allclose(outs[0], ref.numpy(), rtol=1e-10, atol=1e-10)


def _run_kernel_pipeline(prog, spec: str):
    module = prog.module
    run_pipeline(module, IR_PIPELINES["loop"])
    run_pipeline(module, spec)
    return _run_kernel(prog, module, seed=1)


def _run_kernel(prog, module, seed: int):
    """`module` (kernel IR of `prog`) on the CPU executor on random inputs and `prog`'s
    parameters, and PyTorch's result: (out, ref)."""
    rng = np.random.default_rng(seed)
    args = main_func(module).body.block.args[: prog.num_inputs]
    inputs = [rng.standard_normal(tuple(a.type.get_shape())) for a in args]
    inputs += [p.detach().double().numpy() for p in prog.args[prog.num_inputs :]]  # parameters
    (out,) = exec_kernel.run(module, inputs)  # one output
    ref = prog.fn(*[torch.from_numpy(x) for x in inputs[: prog.num_inputs]])
    return out, ref.detach().numpy()


# Reductions on a modeled GPU of 1 SM, so that a few short rows count as few and long: column
# sums and softmax (pad-columns), a LayerNorm over 3 dims (collapse-loops, split-row-stats, then
# split-reduce's atomics for each statistic), a max over one long row (split-reduce).
REDUCTIONS = {
    "colsum": "torch.randn(3,40,45).sum(dim=1)",
    # columns enough to fill the 1 SM: 1 lane a column (33 x 160 padded), 2 lanes (8 x 320)
    # with the block's other threads on the column axis and the axis before it
    "colsum_one_lane": "torch.randn(33,37,129).sum(dim=1)",
    "colamax_two_lanes": "torch.randn(8,41,300).amax(dim=1)",
    "softmax_dim1": "torch.softmax(torch.randn(2,37,45), dim=1)",
    # a column axis of 5 and the one of 12 before it: one axis of 60 (merge-columns; -> 64, masked)
    "amax_merged_columns": "torch.randn(3,40,12,5).amax(dim=1)",
    # merged columns beside a weight over the dim before them (w[%a1a2 floordiv 5, 0]), under a
    # collapsed reduce over two dims, and of three trailing dims (3 x 5 merged: 15 -> 16)
    "sum_merged_columns_weight": "(torch.randn(3,40,12,5) * torch.randn(12,1)).sum(dim=1)",
    "sum_merged_columns_two_reduce_dims": "torch.randn(4,9,12,5).sum(dim=(0,1))",
    "amax_merged_three_trailing_dims": "torch.randn(3,40,7,3,5).amax(dim=1)",
    # channels over 5 x 19 (merge-columns: one axis of 95 -> 96, masked) in three passes
    "softmax_merged_columns": "torch.softmax(torch.randn(2,37,5,19), dim=1)",
    "layernorm_3d": "torch.nn.LayerNorm((8,32,64))(torch.randn(2,8,32,64))",
    "rmsnorm_channels": "torch.nn.functional.rms_norm(torch.randn(2,5,9,37).transpose(1,3), (5,))",
    "amax_long_row": "torch.randn(2,8192).amax(dim=1)",
    "full_mean": "torch.randn(9000).mean()",
}


@pytest.mark.parametrize("name", list(REDUCTIONS))
def test_reductions_keep_meaning(name: str):
    prog = capture_expression(REDUCTIONS[name], dtype=torch.float64)
    # split-row-stats forced: at these sizes the schedule's model keeps one kernel
    spec = "split-nests,split-row-stats,schedule{sms=1},materialize,vectorize-access{reductions=false},accumulate-in-place"
    out, ref = _run_kernel_pipeline(prog, spec)
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-10)


def test_128x128_tile_of_a_transposed_operand_keeps_meaning():
    """A.T @ B with 8 x 8 registers (a one-SM model picks 128 x 128): both operands are stored
    along M / N, so permute-register-tile keeps runs of 4 cells per thread (cell axes 2 x 4;
    K = 96, past its short-k)."""
    prog = capture_expression("torch.randn(96,250).T @ torch.randn(96,200)", dtype=torch.float64)
    module = prog.module
    run_pipeline(module, IR_PIPELINES["loop"])
    run_pipeline(module, "split-nests,schedule{sms=1}")
    cells = [e for t in module.walk() if isinstance(t, tile.TileOp) for _, e, k in t.axes
             if k == tile.AxisKind.CELL]  # fmt: skip
    assert sorted(cells) == [2, 2, 4, 4], cells
    run_pipeline(module, "materialize,accumulate-in-place")
    rng = np.random.default_rng(3)
    inputs = [rng.standard_normal(tuple(a.type.get_shape())) for a in main_func(module).body.block.args]
    (out,) = exec_kernel.run(module, inputs)
    ref = prog.fn(*[torch.from_numpy(x) for x in inputs])
    np.testing.assert_allclose(out, ref.numpy(), rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("case, name", [(0, "k_pad"), (3, "k_part_filled")])
def test_padded_split_k_keeps_meaning_through_materialize(case: int, name: str):
    """split-matmul-k pads K-outer (34 trips -> 7 splits of 5; for a part-filled GPU where no
    dividing split pays, 3 splits of 12) and masks the loads past K; after materialize (clamped
    loads + select, atomics into an output started at 0) the kernel executor agrees with the
    tile executor on the unsplit input."""
    path = Path(__file__).parent.parent / "test" / "lit" / "tile" / "split-matmul-k-pad.mlir"
    ctx = make_context()
    module = parse_module(ctx, path.read_text().split("// -----")[case], path.name)
    rng = np.random.default_rng(4)
    inputs = [rng.standard_normal(tuple(a.type.get_shape())) for a in main_func(module).body.block.args]
    (ref,) = exec_tile.run(module, inputs)
    spec = "split-matmul-k{sms=4 blocks-per-sm=4 atomic-trips=0.5 min-trips=4 tile-elements=16},materialize"
    PassPipeline.parse_spec(all_passes(), spec).apply(ctx, module)
    assert f"{name}_init" in str(module)
    (out,) = exec_kernel.run(module, inputs)
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-12)


def test_a_given_split_pads_or_says_why_not(pass_log):
    """An explicit `splits` that does not divide the K-outer trips pads them (17 -> 18 for 2
    splits), masked, and keeps meaning on the tile executor; where the accumulated value does not
    vanish past K (a product plus 1) it declines and says why."""
    path = Path(__file__).parent.parent / "test" / "lit" / "tile" / "split-matmul-k-sparse.mlir"
    parts = lit_cases(path)
    ctx = make_context()
    for case in (0, 2):
        before = parse_module(ctx, parts[case], path.name)
        after = before.clone()
        PassPipeline.parse_spec(all_passes(), "split-matmul-k{splits=2}").apply(ctx, after)
        same_on_tile_executor(before, after, seed=6, tol=1e-12)
    assert "@k_sparse: K-outer split over 2 blocks (%ks), 9 trips each; K-outer padded 17 -> 18 trips" in pass_log.text
    assert ("declined @k_not_masked: K-outer of 17 trips is not a multiple of splits = 2 (>= 2), and running it "
            "past its end would not be masked") in pass_log.text


# Outputs too small for 64 x 64 tiles to fill an H100 (132 SMs): the schedule takes 32 x 32 tiles
# (2 x 2 registers) and, for a short K, a split of up to 4 (short-k-splits; K-outer padded where
# the splits do not divide it), or keeps the tile unsplit where it models that faster.
SKINNY = {
    # A stored transposed, N = 19, K = 347 (11 trips: 4 splits of 3, one trip past K masked; a
    # launch left on under a quarter of the SMs tries splits down to 2 trips: sparse-tile)
    "tn_n19": ("torch.randn(347,117).T @ torch.randn(347,19)", "SIMT 32 x 32, split 4"),
    # B stored transposed, M = 5 (10 trips: 5 splits of 2)
    "nt_m5": ("torch.randn(5,300) @ torch.randn(21,300).T", "SIMT 32 x 32, split 5"),
    # a linear then a max over its outputs (the matmul kernel; 15 trips: 5 splits of 3)
    "linear_amax": ("torch.nn.functional.linear(torch.randn(7,449), torch.randn(45,449), "
                    "torch.randn(45)).amax(dim=1)", "SIMT 32 x 32, split 5"),
    # batched, K = 101 (4 trips): the 32 x 32 tile split 4 ways models slower than unsplit
    "bmm_k101": ("torch.randn(3,9,101) @ torch.randn(3,101,45)", "SIMT 32 x 32 ("),
}


@pytest.mark.parametrize("name", list(SKINNY))
def test_skinny_matmuls_keep_meaning(name: str, pass_log):
    expr, chosen = SKINNY[name]
    prog = capture_expression(expr, dtype=torch.float64)
    run_pipeline(prog.module, IR_PIPELINES["kernel"])
    line = [ln for ln in pass_log.lines if "is matmul" in ln][-1]  # (after a nested schedule's)
    assert f"is matmul, {chosen}" in line, line
    rng = np.random.default_rng(5)
    args = main_func(prog.module).body.block.args
    inputs = [rng.standard_normal(tuple(a.type.get_shape())) * 3 - 1 for a in args]
    outs = exec_kernel.run(prog.module, inputs)
    ref = prog.fn(*[torch.from_numpy(x) for x in inputs[: prog.num_inputs]])
    np.testing.assert_allclose(outs[0], ref.numpy(), rtol=1e-10, atol=1e-10)


def test_the_split_a_sparse_split_displaced_is_weighed_too(pass_log):
    """Where split-matmul-k takes a sparse split (down to 2 trips, the launch on fewer blocks than
    SMs), the kernel records the count it displaced and the schedule weighs the tile at that
    count as well as unsplit. 1117 x 19 x 347 tn on 32 x 32: the sparse split of 4 (140 blocks,
    two on some SMs) models slower than unsplit, the displaced split of 3 (11 K trips padded to
    12) faster than both (H200, session 28: 6.5 us split 3, 11.3 unsplit). 31 x 3001 x 997 tn on
    64 x 64: the displaced 4 is weighed and the sparse 16 kept (session 29: 13.8 us, the
    tensor cores' 16.1)."""
    prog = capture_expression("torch.randn(347,1117).T @ torch.randn(347,19)", dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["tile"])
    assert "a sparse split, displacing 3; K-outer padded 11 -> 12 trips" in pass_log.text
    line = [ln for ln in pass_log.lines if "is matmul" in ln][-1]
    assert "SIMT 32 x 32, split 4: 15 us, SIMT 32 x 32: 14 us, SIMT 32 x 32, split 3: 10 us" in line, line
    assert "is matmul, SIMT 32 x 32, split 3 (" in line and "splits=3}" in line, line
    pass_log.lines.clear()
    prog = capture_expression("torch.randn(997,31).T @ torch.randn(997,3001)", dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["tile"])
    line = [ln for ln in pass_log.lines if "is matmul" in ln][-1]
    assert "SIMT 64 x 64, split 4:" in line and "is matmul, SIMT 64 x 64, split 16 (" in line, line
    (k,) = [k for k in prog.module.walk() if isinstance(k, tile.KernelOp)]
    assert k.attributes["tile.dense_splits"] == IntegerAttr(4, 64)


def test_estimated_tile_not_tried_where_64x64_fills_the_gpu(pass_log):
    """The 32 x 32 tile's full-GPU cost is an estimate (H100: it took a bmm of 924 blocks from
    64 x 64's 17.5 us to 23.3): it is weighed only where a 64 x 64 grid leaves SMs idle; here
    3 x 1 x 45 = 135 blocks of 64 x 64 fill 132 SMs."""
    prog = capture_expression("torch.randn(3,25,40) @ torch.randn(3,40,2880)", dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["tile"])
    assert any("SIMT 32 x 32 not tried (an estimated cost; 135 blocks fill the SMs)" in ln for ln in pass_log.lines)
    (line,) = [ln for ln in pass_log.lines if "is matmul" in ln]
    assert "is matmul, SIMT 64 x 64" in line, line


# The 32 x 32 tile's full-SM trip is 5 lone trips (its blocks sharing an SM do not overlap):
# matmul_tn 613x665x64 (110 blocks of 64 x 64, 420 of 32 x 32) measured 10.8 us on 32 x 32 and
# 9.0 on 64 x 64 (H200, bench/results/session15), and takes 64 x 64; where 64 x 64 leaves most
# SMs idle 32 x 32 stays: an N of 16 shrinks 64 x 64 to 64 threads a block, so 5209 x 16 runs
# 82 small blocks (H100: 8.8 us on 32 x 32 against 64 x 64's 9.4).
SHARED_SM = {
    "tn_110_blocks": ("torch.randn(64,613).T @ torch.randn(64,665)", "SIMT 64 x 64 ("),
    "linear_n16": ("torch.nn.functional.linear(torch.randn(5209,189), torch.randn(16,189))", "SIMT 32 x 32"),
}


@pytest.mark.parametrize("name", list(SHARED_SM))
def test_32x32_blocks_sharing_an_sm_do_not_overlap(name: str, pass_log):
    expr, chosen = SHARED_SM[name]
    prog = capture_expression(expr, dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["tile"])
    line = [ln for ln in pass_log.lines if "is matmul" in ln][-1]
    assert f"is matmul, {chosen}" in line, line


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
@pytest.mark.parametrize("name", list(SKINNY))
def test_skinny_matmul_cuda_compiles(name: str, tmp_path: Path):
    """The fp32 CUDA of each skinny schedule (its zero-fill launch included) compiles with nvcc."""
    prog = capture_expression(SKINNY[name][0], dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["kernel"])
    cu = tmp_path / "k.cu"
    cu.write_text(print_cuda(prog.module))
    result = subprocess.run([NVCC, nvcc_arch("sm_90"), "-c", "-o", str(tmp_path / "k.o"), str(cu)],
                            capture_output=True, text=True)  # fmt: skip
    assert result.returncode == 0, result.stderr


def test_vectorized_channel_weight_keeps_meaning():
    """vectorize-pointwise past a weight per channel (read the same for the 4 elements of a
    thread): x * w[None, :, None, None] on odd channels and batch, kept one kernel."""
    prog = capture_expression("torch.randn(3,5,7,12) * torch.randn(5,1,1)", dtype=torch.float32)
    spec = ("split-nests,tileify,vectorize-pointwise{min-threads=1},blockify-launch,mark-unroll,"
            "materialize,vectorize-access{reductions=false},accumulate-in-place")
    out, ref = _run_kernel_pipeline(prog, spec)
    assert "vector 4" in str(prog.module)
    np.testing.assert_allclose(out, ref, rtol=1e-6, atol=1e-6)


# Short rows packed 2, 4, 8, 16 or 32 lanes per row (blockify-launch.row_lanes), 256 / lanes rows
# per block (blockify-launch; many rows on a modeled GPU of 1 SM): 13 rows masked to 16, rows on two
# axes, 2 rows on the fastest row axis, rows of 5..21 (below a warp); the combines shuffle within
# the row's lanes.
PACKED = {
    "layernorm": ("torch.nn.functional.layer_norm(torch.randn(13,37), (37,))", 16),  # > 32: not 8
    "rmsnorm": ("torch.nn.functional.rms_norm(torch.randn(3,7,45), (45,), torch.randn(45))", 16),
    "softmax": ("torch.softmax(torch.randn(21,100), dim=-1)", 16),
    "softmax_warp": ("torch.softmax(torch.randn(40,64), dim=-1)", 32),
    "sum_two_rows": ("torch.randn(5,2,50).sum(dim=-1)", 32),  # 16 and 32 lanes: the same 64 slots
    # rows shorter than 32, packed where the op passes over them twice or more (PACK_ROW_MIN)
    "softmax_short": ("torch.softmax(torch.randn(3,5,13,21), dim=-1)", 8),
    "layernorm_short": ("torch.nn.functional.layer_norm(torch.randn(41,9), (9,))", 8),  # <= 16: 8 lanes
    "softmax_short16": ("torch.softmax(torch.randn(19,16), dim=-1)", 8),
    "rmsnorm_short": ("torch.nn.functional.rms_norm(torch.randn(37,5), (5,), torch.randn(5))", 8),
    # <= 32: 8 lanes; the fastest row axis (7) rounds up to 32 rows a block, so the 105 rows run
    # as one axis (blockify-launch's _flat_rows), the last 23 of 128 masked
    "softmax_29_flat": ("torch.softmax(torch.randn(3,5,7,29), dim=-1)", 8),
    # rows many enough to fill the SM twice with 2 or 4 lanes each take those (row_lanes): 3
    # elements a lane, the last block's rows masked (2050 -> 2176, 1030 -> 1088)
    "softmax_five_many": ("torch.softmax(torch.randn(2050,5), dim=-1)", 2),
    "layernorm_nine_many": ("torch.nn.functional.layer_norm(torch.randn(1030,9), (9,))", 4),
}


def _packed(expr: str, lanes: int, dtype: torch.dtype, vectorize: str):
    """`expr` scheduled on a modeled GPU of 1 SM, its rows packed `lanes` lanes each (checked),
    then materialized and vectorized (vectorize-access{`vectorize`}): (prog, kernel module)."""
    prog = capture_expression(expr, dtype=dtype)
    module = prog.module
    run_pipeline(module, IR_PIPELINES["loop"])
    run_pipeline(module, "split-nests,schedule{sms=1}")
    assert f"%lane : {lanes} = thread" in str(module)
    assert " tree " not in str(module)
    run_pipeline(module, f"materialize,vectorize-access{{{vectorize}}},accumulate-in-place")
    return prog, module


@pytest.mark.parametrize("name", list(PACKED))
def test_packed_rows_keep_meaning(name: str):
    prog, module = _packed(*PACKED[name], torch.float64, "reductions=false")
    out, ref = _run_kernel(prog, module, seed=5)
    np.testing.assert_allclose(out, ref, rtol=1e-10, atol=1e-10)


# f32 rows of 8 and 16, many (on a modeled GPU of 1 SM), take the 2 or 4 lanes that move a float4
# each (blockify-launch.row_lanes' float4 lanes); the rows past the last block's end are masked
# and their float4 stores guarded (vectorize-access keeps the guard): 2050 rows -> 2176, and 3 x
# 347 rows of 16 run as one axis (1041 -> 1088).
FLOAT4_ROWS = {
    "softmax_eight": ("torch.softmax(torch.randn(2050,8), dim=-1)", 2),
    "layernorm_sixteen": ("torch.nn.functional.layer_norm(torch.randn(3,347,16), (16,))", 4),
}


@pytest.mark.parametrize("name", list(FLOAT4_ROWS))
def test_float4_rows_keep_meaning(name: str):
    prog, module = _packed(*FLOAT4_ROWS[name], torch.float32, "reductions=false strided-reductions=true")
    guarded = [op for op in module.walk() if isinstance(op, K.StoreOp) and K.is_float4(op.value.type)
               and isinstance(op.parent_op(), K.IfOp)]  # fmt: skip
    assert guarded, "the output's float4 store keeps its guard"
    out, ref = _run_kernel(prog, module, seed=3)
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-6)
