"""Norm schedules. Norms and softmax over a middle dim (channels of (N, C, H, W)): fuse-loops moves the loop over
the reduced dim innermost so the statistic is computed once per column beside a loop that
normalizes (one kernel, sink_unindexed_loops), and the row schedule reads it coalesced (a warp
along the contiguous axis, pad-columns' column axis, the per-channel weight aside). Checked on
random odd-sized inputs: the loop and kernel executors against PyTorch in float64, the kernel
count, and nvcc compiling the CUDA; the @gpu test runs the kernels against eager. A LayerNorm
over two dims packs its rows a warp each with only the rounded-up row dim masked (the collapsed
row index `r floordiv 8, r mod 8` stays within the buffer: padding.operand_range).

    python3 -m pytest -q tests/test_norm_schedule.py
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import torch
from xdsl.dialects.builtin import VectorType

from dpl.backend.cuda_printer import print_cuda
from dpl.bench.ab import patched
from dpl.dialects import kernel as K
from dpl.dialects import loop, tile
from dpl.frontend import capture
from dpl.interpreters import exec_kernel, exec_loop
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from dpl.transforms.tile import schedule

NVCC = shutil.which("nvcc")


class ChannelRMSNorm(torch.nn.Module):
    """RMSNorm over dim 1 of (batch, channels, ...), with a weight per channel."""

    def __init__(self, c: int):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(c))

    def forward(self, x):
        scale = torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + 1e-6)
        shape = [1, -1] + [1] * (x.dim() - 2)
        return x * scale * self.weight.view(shape)


class Softmax1(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


class SoftmaxLast(torch.nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


# (module, shape, kernels): odd sizes; 40 channels spread over lanes, 3 and 7 run in each thread
CASES = [
    (ChannelRMSNorm(40), (3, 40, 5, 7), 1),
    (ChannelRMSNorm(7), (2, 7, 9, 11), 1),
    (ChannelRMSNorm(37), (2, 37, 45), 1),
    (Softmax1(), (5, 3, 13), 1),
    (Softmax1(), (3, 33, 7, 5), 1),
    (ChannelRMSNorm(300), (2, 300, 9), 1),  # past 256 channels, within max-column-reduce (1024)
]


def _rel(a: np.ndarray, ref: np.ndarray) -> float:
    return float(np.linalg.norm(a - ref) / np.linalg.norm(ref))


@pytest.mark.parametrize("mod,shape,kernels", CASES, ids=lambda v: str(v) if isinstance(v, tuple) else None)
def test_column_norm_is_one_kernel_and_keeps_its_meaning(mod, shape, kernels):
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(1)) * 3 - 0.5
    prog = capture(mod, x)
    ref = mod.double()(x.double()).detach().numpy()
    mod.float()
    ins = [x.double().numpy()] + [p.detach().double().numpy() for p in mod.parameters()]

    loop_module = prog.module.clone()
    run_pipeline(loop_module, IR_PIPELINES["loop"])
    assert sum(isinstance(op, loop.KernelOp) for op in loop_module.walk()) == kernels
    at_loop = exec_loop.run(loop_module, [a.copy() for a in ins])[0]
    assert _rel(at_loop, ref) < 1e-6  # (f32 IR)

    module = prog.module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"])
    assert sum(isinstance(op, K.KernelFuncOp) for op in module.walk()) == kernels
    out = exec_kernel.run(module, [a.copy() for a in ins])[0]
    assert not np.isnan(out).any()
    assert _rel(out, ref) < 1e-6


def test_layernorm_over_two_dims_masks_only_the_rounded_rows():
    mod = torch.nn.LayerNorm((6, 8))
    with torch.no_grad():
        mod.weight.normal_()
        mod.bias.normal_()
    x = torch.randn(7, 163, 6, 8, generator=torch.Generator().manual_seed(2)) * 2 + 1  # 1141 rows: packed
    module = capture(mod, x).module.clone()
    run_pipeline(module, IR_PIPELINES["tile"])
    loads = [op for op in module.walk() if isinstance(op, (loop.LoadOp, loop.StoreOp, tile.HoldOp))
             and (op.source if isinstance(op, tile.HoldOp) else op.memref).type.get_shape() == (7, 163, 48)]  # fmt: skip
    # (the row of (6, 8) taken as one dim of 48: merge-dims; x held, hold-rows) the rows
    # (7, 163) run as one axis of 1141 (163 would round up to 176 at 16 rows of 16 lanes a
    # block): only its outermost index, 7 past the last row, is masked
    assert len(loads) == 2 and all(tile.masked_dims(ld) == [0] for ld in loads), [tile.masked_dims(ld) for ld in loads]
    module = capture(mod, x).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"])
    ins = [x.double().numpy()] + [p.detach().double().numpy() for p in (mod.bias, mod.weight)]
    ref = mod.double()(x.double()).detach().numpy()
    names = [a.name_hint for a in next(op for op in module.walk() if op.name == "func.func").args]
    by_name = {"input": ins[0], "p_bias": ins[1], "p_weight": ins[2]}
    out = exec_kernel.run(module, [by_name[n].copy() for n in names])[0]
    assert _rel(out, ref) < 1e-6


@pytest.mark.parametrize("shape", [(3, 1028), (1100, 388)])  # a block per row; rows packed a warp each
def test_row_reductions_read_float4_and_keep_their_meaning(shape):
    """vectorize-access{strided-reductions=true}: the lanes of a row read float4 in the reduce
    loops too (their 4 values added pairwise first), where the row is not held in registers
    (hold-rows: a warp's row of 388 is read once, into 13 registers a lane); kernel executor
    against float64."""
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(3)) * 4
    module = capture(SoftmaxLast(), x).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"])
    loops = [op for op in module.walk() if isinstance(op, K.ForOp) and op.res]
    vector = [op for f in loops for op in f.body.walk() if isinstance(op, K.LoadOp) and isinstance(op.result.type, VectorType)]
    held = [op.result.type.get_shape() for op in module.walk() if isinstance(op, K.AllocaOp)]
    if shape[0] > 1000:
        assert held == [(13,)], held
    else:
        assert loops and vector, "the row's reduce loops read float4"
    out = exec_kernel.run(module, [x.double().numpy()])[0]
    ref = torch.softmax(x.double(), dim=-1).numpy()
    assert _rel(out, ref) < 1e-6


def test_a_long_row_is_staged_whole_and_keeps_its_meaning(pass_log):
    """A softmax row of 12301 floats (48 KB and more) is staged whole in dynamic shared memory by
    blocks of 1024 threads (9 rows fill the 4 SMs of `schedule{sms=4}`, so nothing is split)."""
    x = torch.randn(9, 12301, generator=torch.Generator().manual_seed(4)) * 4
    module = capture(SoftmaxLast(), x).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"].replace("schedule,", "schedule{sms=4},"))
    assert "the row staged whole in shared memory, 1024 threads" in pass_log.text
    (kfunc,) = [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]
    assert kfunc.smem.data >= 4 * 12301 and kfunc.num_threads == 1024
    out = exec_kernel.run(module, [x.double().numpy()])[0]
    ref = torch.softmax(x.double(), dim=-1).numpy()
    assert _rel(out, ref) < 1e-6


def test_few_long_rows_take_more_lanes_and_keep_their_meaning(pass_log):
    """A softmax over 3 rows of 4001 (fewer than 4 rows an SM): 512 lanes pass over a row in 8
    trips (256 would take 16, more than FEW_ROW_TRIPS), the row staged; kernel executor against
    float64."""
    x = torch.randn(3, 4001, generator=torch.Generator().manual_seed(6)) * 4
    module = capture(SoftmaxLast(), x).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"])
    assert "fewer than 4 rows an SM: 512 lanes, staged" in pass_log.text
    (kfunc,) = [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]
    assert kfunc.num_threads == 512
    out = exec_kernel.run(module, [x.double().numpy()])[0]
    assert _rel(out, torch.softmax(x.double(), dim=-1).numpy()) < 1e-6


def test_the_channel_loop_moves_innermost_and_the_warp_reads_along_the_row(pass_log):
    mod = ChannelRMSNorm(64)
    module = capture(mod, torch.randn(2, 64, 9, 40)).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"])
    assert "moved innermost" in pass_log.text
    # 2 x 360 columns are too few to run as one merged axis (24 warps): 40 -> 64, 16 lanes each
    assert "merge-columns: declined @k_mul_1: column axis %a3 of 40 merged with %a2 of 9 would leave 24 warps" in pass_log.text
    assert "pad-columns: @k_mul_1: column axis %a3 40 -> 64" in pass_log.text
    source = print_cuda(module)
    assert "powf" not in source  # x.pow(2) is x * x


def _nvcc_compiles(module, tmp_path) -> None:
    """nvcc (where there is one) compiles the CUDA of kernel-level `module`."""
    if NVCC is None:
        return
    cu = tmp_path / "k.cu"
    cu.write_text(print_cuda(module))
    result = subprocess.run([NVCC, "-arch=sm_90", "-c", "-o", str(tmp_path / "k.o"), str(cu)],
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr


def test_a_narrow_ragged_column_runs_merged_and_keeps_its_meaning(pass_log, tmp_path):
    """RMSNorm over 33 channels of 2 x 33 x 24 x 5: the 5 columns (8 threads, 3 idle) and the 24
    before them run as one axis of 120 -> 128 (merge-columns; 8 warps of columns fill the 4 SMs
    of `schedule{sms=4}` twice), one kernel; kernel executor against float64, nvcc compiles it."""
    mod = ChannelRMSNorm(33)
    x = torch.randn(2, 33, 24, 5, generator=torch.Generator().manual_seed(5)) * 3 - 0.5
    module = capture(mod, x).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"].replace("schedule,", "schedule{sms=4},"))
    assert "merge-columns: @k_mul_1: column axis %a3 of 5 and %a2 of 24 -> one axis of 120" in pass_log.text
    assert "pad-columns: @k_mul_1: column axis %a2a3 120 -> 128" in pass_log.text
    assert sum(isinstance(op, K.KernelFuncOp) for op in module.walk()) == 1
    ins = [x.double().numpy()] + [p.detach().double().numpy() for p in mod.parameters()]
    out = exec_kernel.run(module, ins)[0]
    assert _rel(out, mod.double()(x.double()).detach().numpy()) < 1e-6
    _nvcc_compiles(module, tmp_path)


@pytest.mark.parametrize("make,shape,lanes", [
    (lambda: ChannelRMSNorm(57), (2, 57, 16, 24), 2),  # 29 trips, the last past 57: masked
    (lambda: Softmax1(), (3, 100, 192), 4),  # 25 trips, three passes; 2 warps of 192 columns a block
    (lambda: ChannelRMSNorm(300), (2, 300, 64), 16),  # a long column: 19 trips, held from 16
    (lambda: Softmax1(), (2, 700, 32), 32),  # 22 trips on 32 lanes, a block of 1024 threads
])
def test_column_norms_on_fewer_lanes_hold_their_column_and_keep_their_meaning(make, shape, lanes, pass_log, tmp_path):
    """A column norm whose columns fill half of `schedule{sms=1}` on 2 or 4 lanes takes them
    (blockify_launch.column_norm_lanes), and hold-rows keeps its column in registers: kernel
    executor against float64 on values of both signs, nvcc compiles it."""
    mod = make()
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(9)) * 3 - 0.5
    tiled = capture(mod, x).module.clone()
    run_pipeline(tiled, IR_PIPELINES["tile"].replace("schedule", "schedule{sms=1}"))
    assert f"(%lane : {lanes} = thread," in str(tiled)
    assert "held in" in pass_log.text
    module = capture(mod, x).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"].replace("schedule,", "schedule{sms=1},"))
    assert sum(isinstance(op, K.KernelFuncOp) for op in module.walk()) == 1
    ins = [x.double().numpy()] + [p.detach().double().numpy() for p in mod.parameters()]
    out = exec_kernel.run(module, ins)[0]
    assert _rel(out, mod.double()(x.double()).detach().numpy()) < 1e-6
    _nvcc_compiles(module, tmp_path)


class ColumnAmax(torch.nn.Module):
    def forward(self, x):
        return x.amax(dim=0)


def test_few_merged_columns_over_long_rows_split_and_keep_their_meaning(pass_log, tmp_path):
    """amax over dim 0 of 700 x 20 x 3 on `schedule{sms=4}`: the 3 columns (4 threads, 1 idle)
    and the 20 before them merged are 2 warps (60 -> 64), under 2 per SM, but split-reduce spreads each
    over 700 // 128 = 5 blocks (merge-columns.SPLIT_ROWS): merged, then split over blocks that
    combine by atomic max. Kernel executor against float64 (negative values: max from -inf),
    nvcc compiles it."""
    x = torch.randn(700, 20, 3, generator=torch.Generator().manual_seed(7)) * 3 - 4
    module = capture(ColumnAmax(), x).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"].replace("schedule,", "schedule{sms=4},"))
    assert "merge-columns: @k_amax: column axis %a1 of 3 and %a0 of 20 -> one axis of 60" in pass_log.text
    assert "split-reduce: @k_amax: rows split over" in pass_log.text
    out = exec_kernel.run(module, [x.double().numpy()])[0]
    assert _rel(out, x.double().amax(dim=0).numpy()) == 0
    _nvcc_compiles(module, tmp_path)


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
@pytest.mark.parametrize("make,shape", [(lambda: ChannelRMSNorm(40), (3, 40, 5, 7)), (SoftmaxLast, (300, 16000))])
def test_norm_cuda_compiles(make, shape, tmp_path):
    module = capture(make(), torch.randn(*shape)).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"])
    cu = tmp_path / "column_norm.cu"
    cu.write_text(print_cuda(module))
    result = subprocess.run([NVCC, "-arch=sm_90", "-c", "-o", str(tmp_path / "c.o"), str(cu)],
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("mod,shape", [
    (ChannelRMSNorm(256), (4, 256, 56, 56)), (ChannelRMSNorm(8), (2, 8, 128, 128)),
    (ChannelRMSNorm(37), (3, 37, 45, 17)), (Softmax1(), (64, 3, 251)), (Softmax1(), (8, 129, 33, 31)),
    (ChannelRMSNorm(64), (67, 64, 53, 19)),  # merge-columns: 53 x 19 columns as one axis of 1007
    (SoftmaxLast(), (512, 32000)),  # the row staged whole in dynamic shared memory
])  # fmt: skip
def test_norm_parity_on_gpu(mod, shape):
    """One kernel (a column norm fused, a long row staged whole); relative error against
    float64 at most 2x eager's (or under 2e-6)."""
    assert_one_kernel_parity_on_gpu(mod, torch.randn(*shape))


def assert_one_kernel_parity_on_gpu(mod: torch.nn.Module, x: torch.Tensor) -> None:
    """`mod` compiles to one kernel whose relative error against float64 on the GPU is at most
    2x eager's (or under 2e-6). Also used by test_hold_rows."""
    from dpl.driver.compile import compile as dpl_compile

    c = dpl_compile(mod, x, tune_cache=False)
    assert c.num_kernels == 1
    mod = mod.cuda()
    g = x.cuda()
    out = c(g, poison=True).double()
    ref = mod.double()(g.double())
    eager = mod.float()(g).double()
    err = float((out - ref).norm() / ref.norm())
    eager_err = float((eager - ref).norm() / ref.norm())
    assert err <= max(2 * eager_err, 2e-6), (err, eager_err)


def test_packed_rows_of_a_short_fastest_axis_run_as_one_axis():
    """Softmax over the last dim of (13, 17, 5, 29): 1105 rows of 8 lanes, 32 a block; rounding
    the fastest row axis (5) up to 32 would leave most lanes idle, so blockify-launch runs the
    rows as one axis (35 blocks, the 1106th to 1120th rows masked along dim 0). Kernel executor
    against float64."""
    x = torch.randn(13, 17, 5, 29, generator=torch.Generator().manual_seed(4)) * 4 - 1
    module = capture(SoftmaxLast(), x).module.clone()
    run_pipeline(module, IR_PIPELINES["tile"])
    (t,) = [op for op in module.walk() if isinstance(op, tile.TileOp)]
    assert [(e, k) for _, e, k in t.axes] == [(35, tile.AxisKind.BLOCK), (32, tile.AxisKind.THREAD), (8, tile.AxisKind.THREAD)]
    module = capture(SoftmaxLast(), x).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"])
    out = exec_kernel.run(module, [x.double().numpy()])[0]
    assert _rel(out, torch.softmax(x.double(), dim=-1).numpy()) < 1e-6


def test_a_norm_over_two_dims_stages_its_collapsed_row_and_keeps_its_meaning():
    """LayerNorm over (24, 41) of (7, 24, 41): collapse-loops reads each row as x[a, r floordiv
    41, r mod 41] (r < 984), merge-dims as x[a, r] of a (7, 984) view, which stage-inputs stages
    whole (one read of the row, not three). Kernel executor against float64."""
    mod = torch.nn.LayerNorm((24, 41))
    with torch.no_grad():
        mod.weight.normal_()
        mod.bias.normal_()
    x = torch.randn(7, 24, 41, generator=torch.Generator().manual_seed(5)) * 3 - 1
    module = capture(mod, x).module.clone()
    run_pipeline(module, IR_PIPELINES["tile"])
    stages = [op for op in module.walk() if isinstance(op, tile.StageOp)]
    assert [s.result.type.get_shape() for s in stages] == [(984,)]
    module = capture(mod, x).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"])
    names = [a.name_hint for a in next(op for op in module.walk() if op.name == "func.func").args]
    by_name = {"input": x.double().numpy(), "p_bias": mod.bias.detach().double().numpy(),
               "p_weight": mod.weight.detach().double().numpy()}  # fmt: skip
    out = exec_kernel.run(module, [by_name[n].copy() for n in names])[0]
    assert _rel(out, mod.double()(x.double()).detach().numpy()) < 1e-6


class LayerNormLast2(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.layer_norm(x, x.shape[-2:])


@pytest.mark.parametrize("shape,split,split_unfactored", [
    ((251, 384, 256), True, False), ((600, 4096, 32), True, False), ((1024, 256, 256), True, False),
    ((2048, 64, 64), False, False), ((16, 2048, 2048), True, True)])  # fmt: skip
def test_split_rows_model_splits_few_rows_too_long_to_stage(shape, split, split_unfactored):
    """split_rows (H200 figures: 132 SMs, 227 KiB a block): rows too long for shared memory have
    their statistics split off where one kernel a row, streaming its passes UNSTAGED_ROW_FACTOR
    slower than the split reductions, would be slower (measured split 2.1x, 1.26x and 1.17x
    faster at 251, 600 and 1024 rows, which the factor decides); rows staged in shared memory
    stay one kernel; 16 rows of 4M split whatever the factor."""
    module = capture(LayerNormLast2(), torch.empty(shape, device="meta")).module.clone()
    run_pipeline(module, IR_PIPELINES["loop"])
    (kernel,) = [k for k in module.walk() if isinstance(k, loop.KernelOp)]
    assert schedule.split_rows(kernel, 132, 232448)[0] == split
    with patched(schedule, "UNSTAGED_ROW_FACTOR", 1.0):
        assert schedule.split_rows(kernel, 132, 232448)[0] == split_unfactored
