"""merge-dims keeps meaning: the lit cases on the loop executor before and after (views the
executor reads and writes through), norms and reductions over several dims (odd sizes, a middle
run) through the loop pipeline and collapse-loops, and through the whole kernel pipeline on the
kernel executor against PyTorch in float64, with their CUDA through nvcc; the schedule's row
pipeline merges an RMSNorm's row of three dims and stages it by float4s."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from xdsl.parser import Parser

from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import loop, make_context
from dpl.frontend import capture_expression
from dpl.interpreters import exec_kernel, exec_loop
from dpl.interpreters.exec_loop import main_func
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from conftest import lit_cases, program_inputs

LIT = Path(__file__).parent.parent / "test/lit/loop/merge-dims.mlir"

EXPRS = {
    # an RMSNorm over (5, 7, 3) of 2 x 3 rows (odd sizes), weight merged to 1-D
    "rms_3d": "torch.nn.RMSNorm((5,7,3), eps=1e-6)(torch.randn(2,3,5,7,3))",
    # LayerNorm over (9, 4) with weight and bias
    "layer_norm_2d": "torch.nn.functional.layer_norm(torch.randn(6,9,4), (9,4), torch.randn(9,4), torch.randn(9,4))",
    # a mean over the middle dims 1, 2 beside a last dim of 5 (a middle run)
    "mean_middle": "torch.mean(torch.randn(3,4,7,5), dim=(1,2))",
    # amax over the last two dims
    "amax_last2": "torch.amax(torch.randn(4,11,13), dim=(1,2))",
    # softmax over one dim: nothing to merge
    "softmax": "torch.softmax(torch.randn(3,4,33), dim=-1)",
}


@pytest.mark.parametrize("case", range(len(lit_cases(LIT))))
def test_lit_cases_keep_meaning_on_the_loop_executor(case: int):
    src = lit_cases(LIT)[case]
    before = Parser(make_context(), src).parse_module()
    after = before.clone()
    run_pipeline(after, "merge-dims")
    after.verify()
    for seed in (1, 2):
        ins = program_inputs(main_func(before), seed)
        refs = exec_loop.run(before, [a.copy() for a in ins])
        outs = exec_loop.run(after, [a.copy() for a in ins])
        for out, ref in zip(outs, refs, strict=True):
            np.testing.assert_array_equal(out, ref)  # the same elements, the same order of adds


@pytest.mark.parametrize("name", list(EXPRS))
def test_programs_keep_meaning_on_the_loop_executor(name: str):
    prog = capture_expression(EXPRS[name], dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["loop"] + ",split-nests,collapse-loops")
    before = prog.module.clone()
    run_pipeline(prog.module, "merge-dims")
    prog.module.verify()
    views = [o for o in prog.module.walk() if isinstance(o, loop.ViewOp)]
    assert bool(views) == (name != "softmax")
    ins = program_inputs(main_func(before), 3, prog.args[prog.num_inputs :])
    (ref,) = exec_loop.run(before, [a.copy() for a in ins])
    (out,) = exec_loop.run(prog.module, [a.copy() for a in ins])
    np.testing.assert_array_equal(out, ref)


@pytest.mark.parametrize("name", ["rms_3d", "layer_norm_2d", "mean_middle", "amax_last2"])
def test_programs_through_the_kernel_pipeline(name: str, nvcc_compile, pass_log):
    prog = capture_expression(EXPRS[name], dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["kernel"])
    assert "merge-dims: @" in pass_log.text and " -> memref<" in pass_log.text
    assert not any(isinstance(o, loop.ViewOp) for o in prog.module.walk())  # outline-kernels folded them
    n = prog.num_inputs
    for seed in (1, 2):
        ins = program_inputs(main_func(prog.module), seed, prog.args[n:])
        (out,) = exec_kernel.run(prog.module, ins)
        ref = prog.fn(*[torch.from_numpy(x).double() for x in ins[:n]]).detach().numpy()
        np.testing.assert_allclose(out, ref, rtol=1e-5, atol=1e-5)
    nvcc_compile(print_cuda(prog.module))


def test_the_row_schedule_merges_a_norm_over_three_dims(pass_log):
    """RMSNorm over (5, 17, 64) of 64 rows: one row of 5440 staged by float4s."""
    prog = capture_expression("torch.nn.RMSNorm((5,17,64), eps=1e-6)(torch.randn(64,5,17,64))", dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["kernel"])
    assert "merge-dims: @k_rms_norm: x memref<64x5x17x64xf32> -> memref<64x5440xf32>" in pass_log.text
    assert "stage-inputs: @k_rms_norm: x: staged" in pass_log.text
    assert "float4 x_smem_v = *reinterpret_cast<const float4*>(&x[a0 * 5440 + " in print_cuda(prog.module)
