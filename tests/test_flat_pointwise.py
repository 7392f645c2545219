"""Pointwise kernels whose rows do not hold a multiple of 4 floats run as one flat axis
(collapse-pointwise; the last elements of an odd count in a tail kernel), 4 consecutive
elements per thread (vectorize-pointwise; a broadcast bias read once per element), on buffers
the kernel takes as 1-D (flatten-buffers), one float4 per access (vectorize-access).

Each program is captured in float32, scheduled by the default kernel pipeline, run on the
kernel executor (lockstep SIMT, bounds and race checks) on random inputs with negative values,
and compared with PyTorch in float64; the emitted CUDA compiles with nvcc."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import kernel as K
from dpl.frontend import capture_expression
from dpl.interpreters import exec_kernel, exec_tile
from dpl.interpreters.exec_loop import main_func
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

from test_cuda_compile import NVCC, nvcc_arch

# name: (expression, collapsed and vectorized?)
CASES = {
    # silu(x) * y on rows of 7 (4 x 7 x 7 = 196 elements, a multiple of 4)
    "silu_mul_rows_of_7": ("torch.nn.functional.silu(torch.randn(4,7,7)) * torch.randn(4,7,7)", True),
    # an odd 2-D shape with an even row count: 12 x 45
    "sub_square_12x45": ("(torch.randn(12,45) - torch.randn(12,45)) ** 2", True),
    # rows of 3 (the sweep's 512 x 256 x 3, smaller)
    "gelu_rows_of_3": ("torch.nn.functional.gelu(torch.randn(8,16,3)) * torch.randn(8,16,3)", True),
    # a bias along an odd last dim: collapsed, the bias read once per element (tile.gather)
    "bias_odd_rows": ("torch.randn(12,45) * torch.sigmoid(torch.randn(12,45) + torch.randn(45))", True),
    # a bias over the last two dims of a 3-D tensor (a 2-D broadcast operand, read at f mod 35)
    "bias_2d": ("torch.randn(4,5,7) + torch.randn(5,7)", True),
    # a scale per row (5 rows of 8 x 7): the first axis kept, the rows of 56 one flat axis
    "row_scale_rows_of_7": ("torch.randn(5,8,7) * torch.randn(5,1,1)", True),
    # an odd element count (37 x 29): 1072 in float4s, the last one in a tail run in the same launch
    "odd_count": ("torch.exp(torch.randn(37,29)) * torch.randn(37,29)", True),
}

# The tail split (collapse-pointwise{min-tail-bytes=0}, the default: every size), fused into its
# kernel's launch (fuse-launches):
# 7 x 9 = 60 elements in float4s and a tail kernel of 3; with a bias along the odd last dim; 1-D.
TAIL_SPEC = ("split-nests,tileify,collapse-pointwise{min-tail-bytes=0},vectorize-pointwise{min-threads=1},"
             "blockify-launch,mark-unroll,materialize,flatten-buffers,vectorize-access{reductions=false},"
             "accumulate-in-place,fuse-launches,widen-indices")
TAIL_CASES = {
    "odd_count": "torch.exp(torch.randn(7,9)) * torch.randn(7,9)",
    "odd_count_bias": "torch.nn.functional.gelu(torch.randn(3,11,9)) * torch.randn(3,11,9) + torch.randn(9)",
    # one axis (a 1-D tensor of 103): 100 in float4s, a tail kernel of 3
    "one_axis": "torch.nn.functional.silu(torch.randn(103)) * torch.randn(103)",
}


def _compile(expr: str):
    """The program scheduled for a GPU of 1 SM (so that a small tile counts as many threads)."""
    prog = capture_expression(expr, dtype=torch.float32)
    run_pipeline(prog.module, "set-target{sms=1}," + IR_PIPELINES["kernel"])
    return prog


def _inputs(prog, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    args = main_func(prog.module).body.block.args[: prog.num_inputs]
    xs = [(3 * rng.standard_normal(tuple(a.type.get_shape()))).astype(np.float32) for a in args]
    return xs + [p.detach().float().numpy() for p in prog.args[prog.num_inputs :]]


@pytest.mark.parametrize("name", list(CASES))
def test_flat_pointwise_keeps_meaning(name: str):
    expr, flat = CASES[name]
    prog = _compile(expr)
    funcs = [op for op in prog.module.walk() if isinstance(op, K.KernelFuncOp)]
    takes_flat = any(len(a.type.get_shape()) == 1 and a.type.get_shape()[0] > 45 for f in funcs for a in f.args)
    assert takes_flat == flat
    assert ("vector 4" in str(prog.module)) == flat
    for seed in (1, 2):
        inputs = _inputs(prog, seed)
        (out,) = exec_kernel.run(prog.module, inputs)
        ref = prog.fn(*[torch.from_numpy(x).double() for x in inputs[: prog.num_inputs]])
        np.testing.assert_allclose(out, ref.detach().numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", list(TAIL_CASES))
def test_tail_kernel_keeps_meaning(name: str):
    prog = capture_expression(TAIL_CASES[name], dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["loop"])
    run_pipeline(prog.module, TAIL_SPEC)
    names = [op.sym_name.data for op in prog.module.walk() if isinstance(op, K.KernelFuncOp)]
    assert len(names) == 1 and names[0].endswith("_tail") and "__" in names[0]  # one launch: fused
    assert "vector 4" in str(prog.module) and "%in_threads = arith.cmpi ult, %tid" in str(prog.module)
    for seed in (1, 2):
        inputs = _inputs(prog, seed)
        (out,) = exec_kernel.run(prog.module, inputs)
        ref = prog.fn(*[torch.from_numpy(x).double() for x in inputs[: prog.num_inputs]])
        np.testing.assert_allclose(out, ref.detach().numpy(), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("expr, axes", [
    ("torch.tanh(torch.randn(2,5,6)) + torch.randn(2,5,6)", "%f : 60 = thread"),
    # RMSNorm of 3 rows of 4 x 5 x 7 with its statistic split off: the statistic per row keeps
    # the first axis, the weight is read at %f mod 140
    ("torch.nn.functional.rms_norm(torch.randn(3,4,5,7), (4,5,7), torch.randn(4,5,7))", "%f : 140 = thread"),
])
def test_collapse_pointwise_keeps_meaning_at_tile_level(expr: str, axes: str):
    """The tile IR before and after collapse-pointwise computes the same on the tile executor."""
    prog = capture_expression(expr, dtype=torch.float32)
    module = prog.module
    run_pipeline(module, IR_PIPELINES["loop"] + ",split-nests,split-row-stats,split-nests,tileify")
    inputs = _inputs(prog, 3)
    (before,) = exec_tile.run(module.clone(), inputs)
    run_pipeline(module, "collapse-pointwise")
    assert axes in str(module)
    (after,) = exec_tile.run(module, inputs)
    np.testing.assert_array_equal(before, after)


@pytest.mark.parametrize("name", ["silu_mul_rows_of_7", "gelu_rows_of_3", "bias_odd_rows", "row_scale_rows_of_7", "tail",
                                  "one_axis"])
def test_flat_pointwise_cuda_compiles(name: str, tmp_path: Path):
    if name in ("tail", "one_axis"):
        prog = capture_expression(TAIL_CASES["odd_count_bias" if name == "tail" else name], dtype=torch.float32)
        run_pipeline(prog.module, IR_PIPELINES["loop"])
        run_pipeline(prog.module, TAIL_SPEC)
    else:
        prog = _compile(CASES[name][0])
    source = print_cuda(prog.module)
    assert "float4" in source and "/ 7" not in source and "/ 3" not in source and "/ 45" not in source
    cu = tmp_path / "k.cu"
    cu.write_text(source)
    result = subprocess.run([NVCC, nvcc_arch("sm_90"), "-c", "-o", str(tmp_path / "k.o"), str(cu)],
                            capture_output=True, text=True)  # fmt: skip
    assert result.returncode == 0, result.stderr
