"""Gemma-2's soft-capped causal attention, the sweep case that crashed the compiler (session 40:
softcap_attn_4x8x1024x128, `MmaLoweringError: materialize-mma: @k_red: has more than three
block axes`):

    s = 50 tanh((q @ k^T / sqrt(d)) / 50);  softmax(s.masked_fill(~tril(ones(n, n, bool)), -inf)) @ v

Its causal mask is a bool tensor of its own (an i1 constant once captured), which kept it off
the flash kernel, so the scores q @ k^T were a kernel of their own: a 4-D batched matmul whose
batch (4, 8) beside the M and N tiles gave a wgmma tile four block axes, which materialize-mma
cannot lay on a grid. Now fuse-attention takes the i1 mask (one flash kernel, as plain attention
gets), collapse-matmul-axes makes a batch of two loops one, and the schedule declines tensor-core
tiles whose block axes still do not fit a grid. Each at a reduced size, through the kernel
pipeline to CUDA (nvcc for sm_90a where there is one), checked on the kernel executor against
PyTorch in float64; the @gpu test runs the sweep's size on the GPU.

    python3 -m pytest -q tests/test_softcap_attention.py
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch

from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import kernel as K
from dpl.dialects import mma
from dpl.frontend import capture
from dpl.interpreters import exec_kernel
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

#: The kernel pipeline without fuse-attention and with the tensor cores asked for: the scores and
#: P @ V as the batched matmuls that crashed, each on wgmma.
UNFUSED_TC = IR_PIPELINES["kernel"].replace("fuse-attention,", "").replace("schedule,", "schedule{tensor-cores=true},")


class SoftCapAttention(torch.nn.Module):
    """bench/results/session40/tools/ordinary40.py's (Gemma-2: logits soft-capped by tanh before a
    causal softmax)."""

    def forward(self, q, k, v):
        n = q.shape[-2]
        s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        s = 50.0 * torch.tanh(s / 50.0)
        causal = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
        return torch.softmax(s.masked_fill(~causal, float("-inf")), -1) @ v


def _inputs(shape, seed: int = 0) -> list[torch.Tensor]:
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(*shape, generator=g) * 3 for _ in range(3)]


def _on_the_kernel_executor(prog, module, xs) -> float:
    """The relative error of `module` on the kernel executor against PyTorch in float64."""
    ins = [x.double().numpy() for x in xs] + [np.asarray(a) for a in prog.args[prog.num_inputs :]]
    out = exec_kernel.run(module, ins)[0]
    ref = SoftCapAttention()(*(x.double() for x in xs)).numpy()
    assert not np.isnan(out).any()
    return float(np.linalg.norm(out - ref) / np.linalg.norm(ref))


def test_softcap_attention_is_one_flash_kernel(pass_log, nvcc_compile):
    """The default pipeline: the i1 mask stays in the flash kernel's score epilogue, one kernel."""
    xs = _inputs((2, 3, 130, 64))
    prog = capture(SoftCapAttention(), *xs)
    module = prog.module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"])
    assert "fuse-attention: fuse @" in pass_log.text
    assert "is flash attention: tile-attention" in pass_log.text
    assert len([f for f in module.walk() if isinstance(f, K.KernelFuncOp)]) == 1
    assert _on_the_kernel_executor(prog, module, xs) < 1e-5
    nvcc_compile(print_cuda(module), arch="sm_90a")


def test_softcap_attention_unfused_on_the_tensor_cores(pass_log, nvcc_compile):
    """Without fuse-attention, the scores (2, 3, 128, 128) over K = 64 on wgmma 64 x 64 tiles
    were four block axes (2, 3, 2, 2): the batch is now one loop of 6, and both batched matmuls
    run on the tensor cores."""
    xs = _inputs((2, 3, 128, 64))
    prog = capture(SoftCapAttention(), *xs)
    module = prog.module.clone()
    run_pipeline(module, UNFUSED_TC)
    assert "collapse-matmul-axes: @k_red: the batch 2 x 3 -> 6" in pass_log.text
    funcs = [f for f in module.walk() if isinstance(f, K.KernelFuncOp)]
    assert len(funcs) == 3  # the scores, the softmax, P @ V
    assert len([f for f in funcs if any(isinstance(o, mma.WgmmaOp) for o in f.walk())]) == 2
    assert _on_the_kernel_executor(prog, module, xs) < 1e-5
    nvcc_compile(print_cuda(module), arch="sm_90a")


def test_the_schedule_declines_tensor_cores_whose_blocks_do_not_fit_a_grid(pass_log):
    """The sweep's size without collapse-matmul-axes (its batch of two loops left as it was):
    every tensor-core tile of the scores has four block axes, so the schedule keeps them off the
    tensor cores (logged) and the kernel lowers on SIMT rather than crashing materialize-mma."""
    xs = [torch.randn(4, 8, 1024, 128, device="meta") for _ in range(3)]
    prog = capture(SoftCapAttention(), *xs, dtype=torch.float32)
    module = prog.module.clone()
    pipeline = IR_PIPELINES["kernel"].replace("fuse-attention,", "").replace("collapse-matmul-axes,", "")
    run_pipeline(module, pipeline)
    assert "schedule: @k_red: wgmma 64 x 64 (3xtf32) not tried (its block axes do not fit a grid" in pass_log.text
    assert "@k_red is matmul, SIMT" in pass_log.text
    (scores,) = [f for f in module.walk() if isinstance(f, K.KernelFuncOp) and f.sym_name.data == "k_red"]
    assert not any(isinstance(o, mma.DotOp | mma.WgmmaOp) for o in scores.walk())


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")
def test_softcap_attention_parity_on_gpu():
    """The sweep's case, (4, 8, 1024, 128): one flash launch; relative error against float64 at
    most 2x eager's (or under 2e-6)."""
    from dpl.driver.compile import compile as dpl_compile

    xs = _inputs((4, 8, 1024, 128))
    mod = SoftCapAttention()
    c = dpl_compile(mod, *xs)
    assert c.num_kernels == 1
    gs = [x.cuda() for x in xs]
    out = c(*gs, poison=True).double()
    ref = mod(*(x.double() for x in gs))
    eager = mod(*gs).double()
    err = float((out - ref).norm() / ref.norm())
    eager_err = float((eager - ref).norm() / ref.norm())
    assert err <= max(2 * eager_err, 2e-6), (err, eager_err)
