"""chunk-variance keeps meaning: a LayerNorm (and a variance) of few rows, its statistics split
off (split-row-stats) and read by chunks, computes what the two-pass statistic kernels did, on
the loop executor (rows of several dims and of one; chunks cut at a loop and inside one; inputs
of mean 0, -7 and 1000, where a sum of squares less a squared sum would lose the variance: no
less accurate than the two-pass kernels against PyTorch in float64), and through the kernel
pipeline on the kernel executor against PyTorch in float64; its CUDA compiles. The schedule takes it where it splits a LayerNorm's statistics off."""

from __future__ import annotations


import numpy as np
import pytest
import torch

from dpl.backend.cuda_printer import print_cuda
from dpl.frontend import capture_expression
from dpl.interpreters import exec_kernel, exec_loop
from dpl.interpreters.exec_loop import main_func
from dpl.transforms.pipelines import IR_PIPELINES, kernel_schedule, run_pipeline

CASES = {
    # rows of 4 x 6 x 10, chunks of 2 x 10 (the loop of 6 split 3 x 2)
    "layer_norm_3d": ("torch.nn.functional.layer_norm(torch.randn(3,4,6,10), (4,6,10), torch.randn(4,6,10), torch.randn(4,6,10))", 20),
    # rows of 7 x 9 x 5 (odd), chunks of 9 x 5 (a whole loop)
    "layer_norm_odd": ("torch.nn.functional.layer_norm(torch.randn(2,7,9,5), (7,9,5))", 45),
    # one dim of 96, chunks of 16 (a loop split 6 x 16)
    "layer_norm_1d": ("torch.nn.functional.layer_norm(torch.randn(5,96), (96,))", 16),
    # torch.var over a row of 4 x 30 (unbiased: the same two statistics)
    "var": ("torch.var(torch.randn(3,4,30), dim=(1,2))", 30),
    # the variance of a whole tensor: one row, no row loop (split-row-stats' whole-tensor case)
    "var_whole": ("torch.var(torch.randn(4,30))", 30),
}
SPLIT = "split-nests,split-row-stats"


def _inputs(prog, seed: int, offset: float) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    args = main_func(prog.module).body.block.args[: prog.num_inputs]
    xs = [((offset if i == 0 else 0.0) + 3 * rng.standard_normal(tuple(a.type.get_shape()))).astype(np.float32)
          for i, a in enumerate(args)]  # (the offset on the normalized input only)
    return xs + [p.detach().float().numpy() for p in prog.args[prog.num_inputs :]]


def _reference(prog, inputs) -> np.ndarray:
    return prog.fn(*[torch.from_numpy(x).double() for x in inputs[: prog.num_inputs]]).detach().numpy()


@pytest.mark.parametrize("name", list(CASES))
def test_chunks_keep_meaning_on_the_loop_executor(name: str, pass_log):
    expr, chunk = CASES[name]
    prog = capture_expression(expr, dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["loop"] + "," + SPLIT)
    before = prog.module.clone()
    run_pipeline(prog.module, f"chunk-variance{{min-chunk={chunk}}}")
    assert f"chunks of {chunk} per row" in pass_log.text
    for seed, offset in ((1, 0.0), (2, -7.0), (3, 1000.0)):
        inputs = _inputs(prog, seed, offset)
        (old,) = exec_loop.run(before.clone(), inputs)
        (new,) = exec_loop.run(prog.module, inputs)
        ref = _reference(prog, inputs)
        scale = max(1.0, float(np.abs(ref).max()))
        # no less accurate than the two-pass kernels (within a few roundings of the output)
        assert np.abs(new - ref).max() <= 2 * np.abs(old - ref).max() + 8e-7 * scale
        np.testing.assert_allclose(new, ref, rtol=1e-4, atol=1e-4 * scale)


@pytest.mark.parametrize("name", ["layer_norm_3d", "layer_norm_1d"])
def test_chunks_keep_meaning_through_the_kernel_pipeline(name: str, nvcc_compile):
    expr, chunk = CASES[name]
    prog = capture_expression(expr, dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["loop"] + f",{SPLIT},chunk-variance{{min-chunk={chunk}}}")
    run_pipeline(prog.module, kernel_schedule())
    assert "_chunks" in str(prog.module)
    for seed, offset in ((1, 0.0), (3, -7.0)):  # (a mean of 1000 is compared with the old kernels above)
        inputs = _inputs(prog, seed, offset)
        (out,) = exec_kernel.run(prog.module, inputs)
        ref = _reference(prog, inputs)
        np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
    nvcc_compile(print_cuda(prog.module))


def test_the_schedule_reads_a_split_layer_norm_by_chunks(pass_log):
    """LayerNorm over (64, 256, 256) of 16 rows: split, then one read of the row for both statistics."""
    prog = capture_expression("torch.nn.functional.layer_norm(torch.randn(16,64,256,256), (64,256,256))",
                              dtype=torch.float32)  # fmt: skip
    run_pipeline(prog.module, IR_PIPELINES["tile"])
    assert "split-row-stats,chunk-variance{min-chunk=256}" in pass_log.text
    assert "16384 chunks of 256 per row" in pass_log.text
    assert "tile.kernel @k_layer_norm_stat0_chunks" in str(prog.module)
