"""Issue 13: the default schedule on ragged, odd and prime sizes keeps meaning end to end.

Each program is captured in float64, scheduled by the default kernel pipeline (pad-matmul's
masked tiles, flat pointwise launches, a contraction kept out of a reduction) and run on the
kernel executor (lockstep SIMT, bounds and race checks), against PyTorch in float64."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from dpl.dialects import kernel as K
from dpl.frontend import capture_expression
from dpl.interpreters import exec_kernel
from dpl.interpreters.exec_loop import main_func
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

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
    # sum over a linear's outputs: a matmul kernel, then a row sum
    "linear_sum": "(torch.randn(9,70) @ torch.randn(70,41)).sum(dim=1)",
    # pointwise on a prime size: flat threads over blocks of 256
    "pointwise_prime": "torch.nn.functional.silu(torch.randn(3,257)) * torch.randn(3,257)",
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
