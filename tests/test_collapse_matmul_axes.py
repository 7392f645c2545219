"""collapse-matmul-axes keeps meaning and puts such contractions on the tensor cores: the lit
cases on the loop executor before and after; convolutions (3x3, stride 2, 1-D, 1x1, with a
BatchNorm + ReLU epilogue), linears over a batch of sequences and a matmul broadcasting its
weight, odd sizes, through the loop pipeline on the loop executor before and after the pass
(bit-identical: each output element sums its products in the same order), a matmul batched over
two dims, and through the whole
kernel pipeline with the tensor cores asked for (padded N and K, masked along the dims a
floordiv leaves) on the kernel executor against PyTorch in float64, their CUDA through nvcc for
sm_90a; the default schedule's log for a convolution that the tensor cores now take; the host
program of such kernels (launched with their views' buffers); and programs of odd shapes drawn
per seed (strided, dilated, transposed, 1-D convolutions, batched linears) through both
pipelines."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch

from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import kernel, loop
from dpl.driver.host import HostProgram
from dpl.frontend import capture_expression
from dpl.interpreters import exec_kernel, exec_loop
from dpl.interpreters.exec_loop import main_func
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from conftest import lit_case_keeps_meaning, lit_cases, program_inputs

LIT = Path(__file__).parent.parent / "test/lit/loop/collapse-matmul-axes.mlir"
LOOP_BEFORE = IR_PIPELINES["loop"].replace("collapse-matmul-axes,", "")
F = "torch.nn.functional."

EXPRS = {
    "linear_3d": F + "linear(torch.randn(3,37,40), torch.randn(70,40), torch.randn(70))",
    "conv2d": F + "conv2d(torch.randn(2,8,9,13), torch.randn(64,8,3,3), torch.randn(64), padding=1)",
    "conv2d_bn_relu": F + "relu((" + F + "conv2d(torch.randn(2,8,9,13), torch.randn(64,8,3,3), padding=1)"
    " - torch.randn(64,1,1)) * torch.rsqrt(torch.randn(64,1,1).abs() + 1e-5))",
    "conv2d_stride2": F + "conv2d(torch.randn(3,6,15,11), torch.randn(72,6,3,3), torch.randn(72), stride=2, padding=1)",
    "conv1d": F + "conv1d(torch.randn(3,16,41), torch.randn(64,16,5), torch.randn(64), padding=2)",
    "conv2d_1x1": F + "conv2d(torch.randn(2,40,9,13), torch.randn(64,40,1,1))",
    "matmul_broadcast": "torch.randn(3,37,40) @ torch.randn(40,70)",
    # prologue factors: an RMSNorm's rstd on x's side and its weight on K alone; a mask on a
    # convolution's weight, indexed by K alone
    "rmsnorm_linear_3d": F + "linear(" + F + "rms_norm(torch.randn(3,37,40), (40,), torch.randn(40)), torch.randn(200,40))",
    "masked_conv2d": F + "conv2d(torch.randn(2,8,9,13), torch.randn(64,8,3,3) * (torch.randn(3,3) > 0), padding=1)",
    "gram_reshaped": "torch.randn(3,40,5,7).reshape(3,40,35) @ torch.randn(3,72,5,7).reshape(3,72,35).transpose(1,2)",
    # a batch of two loops (attention's batch and heads) made one: with the M and N tiles it was
    # four block axes, more than materialize-mma lays on a grid
    "bmm_4d": "torch.randn(2,3,130,40) @ torch.randn(2,3,40,70)",
}
TENSOR_CORES = IR_PIPELINES["kernel"].replace("schedule,", "schedule{tensor-cores=true},")


@pytest.mark.parametrize("case", range(len(lit_cases(LIT))))
def test_lit_cases_keep_meaning_on_the_loop_executor(case: int):
    lit_case_keeps_meaning(lit_cases(LIT)[case], "collapse-matmul-axes")  # bit-identical


@pytest.mark.parametrize("name", list(EXPRS))
def test_programs_keep_meaning_on_the_loop_executor(name: str, pass_log):
    prog = capture_expression(EXPRS[name], dtype=torch.float32)
    run_pipeline(prog.module, LOOP_BEFORE)
    before = prog.module.clone()
    run_pipeline(prog.module, "collapse-matmul-axes")
    prog.module.verify()
    assert "collapse-matmul-axes: @" in pass_log.text
    ins = program_inputs(main_func(before), 3, prog.args[prog.num_inputs :])
    (ref,) = exec_loop.run(before, [a.copy() for a in ins])
    (out,) = exec_loop.run(prog.module, [a.copy() for a in ins])
    assert not np.isnan(out).any(), "an output element was never written"
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("name", list(EXPRS))
def test_programs_on_the_tensor_cores(name: str, nvcc_compile, pass_log):
    prog = capture_expression(EXPRS[name], dtype=torch.float32)
    run_pipeline(prog.module, TENSOR_CORES)
    assert "tensorize-matmul: @" in pass_log.text
    n = prog.num_inputs
    for seed in (1, 2):
        ins = program_inputs(main_func(prog.module), seed, prog.args[n:])
        (out,) = exec_kernel.run(prog.module, ins)
        ref = prog.fn(*[torch.from_numpy(x).double() for x in ins[:n]]).detach().numpy()
        assert np.linalg.norm(out - ref) / np.linalg.norm(ref) < 1e-6
    nvcc_compile(print_cuda(prog.module), arch="sm_90a")


def test_the_schedule_puts_a_convolution_on_the_tensor_cores(pass_log):
    """A 3x3 convolution of 8 x 64 x 56 x 56: its output positions one loop of 25088, wgmma."""
    prog = capture_expression(F + "conv2d(torch.randn(8,64,56,56), torch.randn(64,64,3,3), padding=1)", dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["tile"])
    assert "collapse-matmul-axes: @k_conv2d: %padded's side 8 x 56 x 56 -> 25088" in pass_log.text
    assert "spans" not in pass_log.text
    assert "@k_conv2d is matmul, wgmma" in pass_log.text


def test_the_schedule_puts_an_experts_einsum_on_the_tensor_cores(pass_log):
    """A dense mixture of experts: `td,edh->teh` reads the weight at [%n floordiv 64, %r, %n mod
    64]; its fused loads carried every loop index (the rows' among them), which the schedule
    read as B depending on M."""
    prog = capture_expression("torch.einsum('te,teh->th', torch.softmax(torch.randn(128,4),-1), "
                              "torch.einsum('td,edh->teh', torch.randn(128,64), torch.randn(4,64,64)))",
                              dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["kernel"])
    assert "depends on both M and N" not in pass_log.text
    assert "(modeled wgmma" in pass_log.text  # the tensor cores are candidates (SIMT wins this small)
    ins = program_inputs(main_func(prog.module), 5)
    (out,) = exec_kernel.run(prog.module, [a.copy() for a in ins])
    ref = prog.fn(*[torch.from_numpy(x).double() for x in ins]).numpy()
    assert np.linalg.norm(out - ref) / np.linalg.norm(ref) < 1e-6


@pytest.mark.parametrize("name", ["linear_3d", "conv2d_bn_relu"])
def test_launches_pass_the_buffers_the_views_are_of(name: str):
    """The tensor-core kernels take the views as their parameter types and are launched with the
    buffers themselves (materialize-mma, as outline-kernels): @main keeps no loop.view, so the
    host program (dpl.compile's runtime) accepts it."""
    prog = capture_expression(EXPRS[name], dtype=torch.float32)
    run_pipeline(prog.module, TENSOR_CORES)
    main = main_func(prog.module)
    assert not [o for o in main.walk() if isinstance(o, loop.ViewOp)]
    launches = [o for o in main.walk() if isinstance(o, kernel.LaunchOp)]
    assert all(not isinstance(a.owner, loop.ViewOp) for k in launches for a in k.operands)
    HostProgram(prog.module)  # raises on anything but allocs, launches and the return


def _random_program(seed: int) -> str:
    """A convolution (strided, dilated, transposed, with a BatchNorm + ReLU epilogue, 1-D) or a
    linear / matmul over a batch of rows, of odd sizes drawn from `seed`."""
    rng = np.random.default_rng(seed)
    i = lambda lo, hi: int(rng.integers(lo, hi + 1))  # noqa: E731
    kind = ["conv2d", "conv1d", "linear", "matmul", "dilated", "transposed", "bn_relu"][seed % 7]
    if kind == "conv2d":
        c, k, o = i(1, 20), int(rng.choice([1, 3, 5])), int(rng.choice([16, 33, 64]))
        return (F + f"conv2d(torch.randn({i(1, 3)},{c},{i(3, 13)},{i(3, 13)}), torch.randn({o},{c},{k},{k}), "
                f"stride={i(1, 2)}, padding={i(0, k // 2 + 1)})")  # fmt: skip
    if kind == "conv1d":
        c, k = i(1, 24), int(rng.choice([3, 5, 7]))
        return F + f"conv1d(torch.randn({i(1, 4)},{c},{i(5, 60)}), torch.randn(48,{c},{k}), padding={k // 2})"
    if kind == "linear":
        k, o = i(16, 80), i(16, 90)
        return F + f"linear(torch.randn({i(2, 5)},{i(3, 40)},{k}), torch.randn({o},{k}), torch.randn({o}))"
    if kind == "matmul":
        k = i(32, 70)
        return f"torch.randn({i(2, 4)},{i(3, 40)},{k}) @ torch.randn({k},{i(16, 70)})"
    if kind == "dilated":
        c = i(2, 9)
        return F + f"conv2d(torch.randn(2,{c},{i(7, 13)},{i(7, 13)}), torch.randn(40,{c},3,3), padding=2, dilation=2)"
    if kind == "transposed":
        c = i(2, 8)
        return F + f"conv_transpose2d(torch.randn(2,{c},{i(3, 8)},{i(3, 8)}), torch.randn({c},24,4,4), stride=2, padding=1)"
    c = i(2, 12)
    return (F + f"relu(({F}conv2d(torch.randn({i(1, 3)},{c},{i(4, 10)},{i(4, 10)}), torch.randn(64,{c},3,3), padding=1)"
            " - torch.randn(64,1,1)) * torch.randn(64,1,1))")  # fmt: skip


@pytest.mark.parametrize("seed", range(7))
def test_random_shapes_on_both_pipelines(seed: int):
    """Each drawn program through the default kernel pipeline and with the tensor cores asked
    for (where a tile fits), on the kernel executor against float64."""
    expr = _random_program(seed)
    for pipeline in (IR_PIPELINES["kernel"], TENSOR_CORES):
        prog = capture_expression(expr, dtype=torch.float32)
        try:
            run_pipeline(prog.module, pipeline)
        except ValueError as e:  # a contraction too small for any tensor-core tile
            assert pipeline is TENSOR_CORES and "no matmul schedule fits" in str(e), e
            continue
        ins = program_inputs(main_func(prog.module), seed)
        (out,) = exec_kernel.run(prog.module, ins)
        ref = prog.fn(*[torch.from_numpy(x).double() for x in ins]).detach().numpy()
        assert not np.isnan(out).any(), expr
        assert np.linalg.norm(out - ref) / np.linalg.norm(ref) < 1e-5, expr
