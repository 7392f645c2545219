"""repack-operands (issue 13): matmul operands whose rows are not a multiple of 4 floats are copied
into zero-padded aligned buffers; meaning is kept on the loop executor (the pass alone) and on
the kernel executor (the whole schedule with the copies), odd sizes, every transpose, batched;
the schedule weighs the copies as a candidate and logs it; the CUDA compiles with nvcc."""

from __future__ import annotations

import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from xdsl.context import Context
from xdsl.passes import PassPipeline

from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import kernel as K
from dpl.dialects import loop, tile
from dpl.frontend import capture_expression
from dpl.interpreters import exec_kernel, exec_loop
from dpl.interpreters.exec_loop import main_func
from dpl.transforms import all_passes
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from dpl.transforms.tile.schedule import pointwise_us

from test_cuda_compile import NVCC, nvcc_arch

CASES = {
    "nn": "torch.randn(19,37) @ torch.randn(37,23)",  # K and N misaligned; K kept, B masked past it
    "nt": "torch.randn(19,37) @ torch.randn(21,37).T",  # both along K: K runs to 64 unmasked
    "tn": "torch.randn(37,19).T @ torch.randn(37,21)",  # rows along M and N
    "tt": "torch.randn(37,19).T @ torch.randn(23,37).T",
    "bmm_tn": "torch.randn(3,33,17).transpose(1,2) @ torch.randn(3,33,8)",  # batched, B aligned
    "linear_gelu": "torch.nn.functional.gelu(torch.nn.functional.linear("
                   "torch.randn(7,41), torch.randn(13,41), torch.randn(13)))",  # epilogue kept
    "gram": "(lambda x: x @ x.T)(torch.randn(11,35))",  # one buffer read as both operands
    "slice": "torch.randn(11,39)[:, :37] @ torch.randn(13,37).T",  # K < the rows: data past K kept
}

REPACKED = IR_PIPELINES["kernel"].replace("split-nests,schedule", "split-nests,repack-operands,schedule")


def _inputs(module, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(tuple(a.type.get_shape())) for a in main_func(module).body.block.args]


@pytest.mark.parametrize("name", list(CASES))
def test_repack_keeps_meaning_on_the_loop_executor(name: str):
    prog = capture_expression(CASES[name], dtype=torch.float64)
    module = prog.module
    run_pipeline(module, IR_PIPELINES["loop"])
    inputs = _inputs(module, 0)
    before = exec_loop.run(module, inputs)
    run_pipeline(module, "repack-operands")
    names = [k.sym_name.data for k in module.walk() if isinstance(k, loop.KernelOp)]
    assert any("_pad_" in n for n in names), names
    after = exec_loop.run(module, inputs)
    np.testing.assert_allclose(after[0], before[0], rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["nn", "nt", "tt", "bmm_tn"])
def test_repacked_schedule_keeps_meaning_on_the_kernel_executor(name: str):
    """The copies and the matmul on them, scheduled and materialized (SIMT: f64), against PyTorch."""
    prog = capture_expression(CASES[name], dtype=torch.float64)
    module = prog.module
    run_pipeline(module, REPACKED)
    inputs = _inputs(module, 1)
    outs = exec_kernel.run(module, inputs)
    ref = prog.fn(*[torch.from_numpy(x) for x in inputs[: prog.num_inputs]])
    np.testing.assert_allclose(outs[0], ref.numpy(), rtol=1e-10, atol=1e-10)


def test_aligned_matmul_is_declined(pass_log):
    prog = capture_expression("torch.randn(19,36) @ torch.randn(36,24)", dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["loop"] + ",repack-operands")
    assert not any("_pad_" in k.sym_name.data for k in prog.module.walk() if isinstance(k, loop.KernelOp))
    assert any("repack-operands: declined @k_matmul" in ln for ln in pass_log.lines), pass_log.lines


def test_schedule_weighs_the_copies(pass_log):
    """A large misaligned matmul (K = 257, N = 4081): the schedule tries the repacked candidate,
    logs its modeled time next to the others, and takes it (element-wise SIMT trips cost
    ELEMENT_TRIP; the copies cost their bytes). An aligned one does not try it."""
    prog = capture_expression("torch.randn(3079,257) @ torch.randn(257,4081)", dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["tile"])
    line = [ln for ln in pass_log.lines if "@k_matmul is matmul" in ln][-1]  # (the nested schedule's first)
    assert "is matmul, operands repacked" in line and "operands repacked: " in line, line
    pass_log.lines.clear()
    prog = capture_expression("torch.randn(1000,1000) @ torch.randn(1000,1000)", dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["tile"])
    (line,) = [ln for ln in pass_log.lines if "@k_matmul is matmul" in ln]
    assert "repacked" not in line, line


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
@pytest.mark.parametrize("spec", ["schedule", "schedule{tensor-cores=true}", "schedule{precision=ieee}"])
def test_repacked_cuda_compiles(spec: str, tmp_path: Path):
    """The fp32 CUDA of the copies and of the aligned matmul (wgmma and SIMT) compiles with nvcc
    for sm_90a; the staged tiles are read with 16-byte cp.async or float4 loads."""
    prog = capture_expression("torch.randn(300,257) @ torch.randn(301,257).T", dtype=torch.float32)
    run_pipeline(prog.module, REPACKED.replace("repack-operands,schedule", f"repack-operands,{spec}"))
    cuda = print_cuda(prog.module)
    assert "x_pad" in cuda and "y_pad" in cuda
    assert "], 4;" not in cuda  # no element-wise cp.async
    cu = tmp_path / "k.cu"
    cu.write_text(cuda)
    result = subprocess.run([NVCC, nvcc_arch("sm_90a"), "-c", "-o", str(tmp_path / "k.o"), str(cu)],
                            capture_output=True, text=True)  # fmt: skip
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("repack, chosen", [("false", "wgmma 64 x 128 (3xtf32, padded)"), ("true", "operands repacked")])
def test_schedule_repack_option(repack: str, chosen: str, pass_log):
    """`schedule{repack=false}` never tries the copies; `repack=true` takes them where it can."""
    prog = capture_expression("torch.randn(3079,257) @ torch.randn(257,4081)", dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["tile"].replace(",schedule", f",schedule{{repack={repack}}}"))
    line = [ln for ln in pass_log.lines if "@k_matmul is matmul" in ln][-1]
    assert f"is matmul, {chosen}" in line, line
    assert (repack == "true") == ("operands repacked" in line), line


def test_copies_of_operands_named_alike_are_two_kernels():
    """A plain function's inputs are captured as `inputs`, `inputs_1`: each copy kernel gets a
    name of its own (one name for both made the second launch call the first's kernel)."""
    from dpl.driver.compile import compile as dpl_compile

    a, b = torch.empty(3079, 257), torch.empty(257, 4081)
    c = dpl_compile(lambda a, b: a @ b, a, b, tune_cache=False)
    names = [k.sym_name.data for k in c.module.walk() if isinstance(k, K.KernelFuncOp)]
    pads = [n for n in names if "_pad_" in n]
    assert len(names) == len(set(names)) and len(pads) == 1 and pads[0].count("_pad_") == 2, names


def test_copy_cost_counts_every_lane():
    """The copies' modeled time (schedule.pointwise_us) is their bytes whether or not
    vectorize-pointwise has given each thread a loop over 4 lanes (it counted a quarter of them,
    so the copies looked 4x cheaper than they are)."""
    def modeled(spec: str) -> float:
        prog = capture_expression("torch.randn(300,257) @ torch.randn(301,257).T", dtype=torch.float32)
        run_pipeline(prog.module, IR_PIPELINES["loop"] + ",repack-operands")
        copies = [k for k in prog.module.walk() if isinstance(k, loop.KernelOp) and "_pad_" in k.sym_name.data]
        PassPipeline.parse_spec(all_passes(), spec).apply(Context(), prog.module)
        tiles = [t for t in prog.module.walk() if isinstance(t, tile.TileOp) and "_pad_" in t.parent_op().sym_name.data]
        assert len(copies) == len(tiles) == 2
        return sum(pointwise_us(t) for t in tiles)

    flat = modeled("tileify,collapse-pointwise")
    vectorized = modeled("tileify,collapse-pointwise,vectorize-pointwise,blockify-launch")
    assert flat == pytest.approx(vectorized)
    assert flat > 2 * 3.0 + (300 * (257 + 260) + 301 * (257 + 260)) * 4 / 3e6 * 0.99  # launches + bytes


def test_split_k_padding_past_an_aligned_k_is_no_masked_step(pass_log):
    """A split of K whose trips are padded (split-matmul-k) masks only whole K steps past the end
    when K is a multiple of 32 (after repack-operands): the tensor-core tile is modeled at the
    unmasked step (schedule_mma.stage_kind "rows", not "float4"), so 4665 x 256 x 2333 nt runs
    repacked on the tensor cores (H100: 0.141 ms, against 0.186 on SIMT)."""
    prog = capture_expression("torch.randn(4665,2333) @ torch.randn(256,2333).T", dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["tile"])
    lines = [ln for ln in pass_log.lines if "@k_matmul is matmul" in ln]
    assert "is matmul, operands repacked" in lines[-1], lines[-1]
    assert "is matmul, wgmma 128 x 128" in lines[-2], lines[-2]


def test_integer_operands_are_left_as_they_are():
    """An integer contraction (sort's rank count on rows of 9 int64s is one) is not repacked: its
    copies would need a zero of the element type (and it is no tensor-core or float4 matmul)."""
    prog = capture_expression("torch.sort(torch.randint(-3, 3, (4, 9)), stable=True)[1]")
    module = prog.module
    run_pipeline(module, IR_PIPELINES["kernel"])
    rng = np.random.default_rng(0)
    x = rng.integers(-3, 3, (4, 9))
    (out,) = exec_kernel.run(module, [x] + list(prog.args[prog.num_inputs:]))
    np.testing.assert_array_equal(out, torch.sort(torch.from_numpy(x), stable=True)[1].numpy())
