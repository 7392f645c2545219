"""A padded convolution's or pooling's input is one elementwise op (decompose-windows' `pad`):
the input read at `(o + k * n - p) mod n`, kept inside the padding, else the pad value. Through
the whole kernel pipeline on the kernel executor against PyTorch in float64: a padding wider
than the input (p = 3 > n = 2: the mod's operand stays non-negative), 1-D and 2-D convolutions
(the pad its own kernel: fuse-loops keeps a loop-index select out of a contraction), max pooling (-inf padding, fused into the window's reduce: one kernel) and average pooling that
excludes the padding (its counts from a padded ones tensor); the CUDA through nvcc."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from dpl.backend.cuda_printer import print_cuda
from dpl.frontend import capture, capture_expression
from dpl.interpreters import exec_kernel
from dpl.interpreters.exec_loop import main_func
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from conftest import program_inputs

F = "torch.nn.functional."
EXPRS = {
    "conv2d_pad_wider": (F + "conv2d(torch.randn(1,4,2,3), torch.randn(5,4,3,3), padding=3)", 2),
    "conv2d_3x3": (F + "conv2d(torch.randn(2,6,9,7), torch.randn(8,6,3,3), torch.randn(8), padding=1)", 2),
    "conv1d_pad4": (F + "conv1d(torch.randn(2,3,7), torch.randn(4,3,5), padding=4)", 2),
    "max_pool": (F + "max_pool2d(torch.randn(2,3,5,4), 3, 2, 1)", 1),
    "avg_pool_exclude_pad": (F + "avg_pool2d(torch.randn(2,3,5,4), 3, 1, 1, count_include_pad=False)", None),
}


@pytest.mark.parametrize("name", list(EXPRS))
def test_padded_windows_match_pytorch(name: str, nvcc_compile):
    expr, kernels = EXPRS[name]
    prog = capture_expression(expr, dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["kernel"])
    ins = program_inputs(main_func(prog.module), 4)
    (out,) = exec_kernel.run(prog.module, ins)
    ref = prog.fn(*[torch.from_numpy(x).double() for x in ins]).detach().numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    source = print_cuda(prog.module)
    if kernels is not None:  # the pad (where not fused into its reader) and the window op
        assert source.count("__global__") == kernels
    nvcc_compile(source, arch="sm_90a")


def test_a_transposed_convolution_of_a_real_size_compiles(nvcc_compile):
    """The zeros a stride-2 transposed convolution interleaves (a splat of 4 x 128 x 32 x 32 x 1
    elements) lower to a fill loop, not one store per element (refused past 4096)."""
    with torch.device("meta"):
        mod = torch.nn.ConvTranspose2d(128, 64, 4, 2, 1)
        prog = capture(mod, torch.randn(4, 128, 32, 32), dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["kernel"])
    nvcc_compile(print_cuda(prog.module), arch="sm_90a")
