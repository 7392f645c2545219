"""Statistics of a whole tensor feeding the tensor (`x / x.abs().max()`, `x - x.mean()`,
`x.var()`) and sums of a constant keep meaning where the schedule now spreads them over the GPU.

- fold-invariant-reductions: a reduce loop of a value defined outside it (a Cholesky's first
  column sums `l * l` of l = zeros) is folded (inside fuse-loops, and as a pass after it); the
  loop IR computes what it did with the loop left, on the loop executor.
- split-row-stats on a kernel with no outer free loop (one row, the whole tensor): its
  statistics go to one-element buffers; the loop executor gives the same before and after, on
  inputs with negatives and odd sizes; through the default kernel schedule the kernels match
  PyTorch in float64 on the kernel executor, no kernel writing the output runs on one block, and
  the CUDA compiles.
"""

from __future__ import annotations

import numpy as np
import pytest
import torch

from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import kernel as K
from dpl.dialects import loop
from dpl.frontend import capture, capture_expression
from dpl.interpreters import exec_kernel, exec_loop
from dpl.interpreters.exec_loop import main_func
from dpl.transforms.loop import fuse_loops
from dpl.transforms.pipelines import IR_PIPELINES, kernel_schedule, run_pipeline

WHOLE = {
    "max_normalize": "(lambda x: x / x.abs().max())(torch.randn(97, 103))",
    "center": "(lambda x: x - x.mean())(torch.randn(5, 43, 47))",
    "standardize": "(lambda x: (x - x.mean()) / x.std())(torch.randn(61, 163))",
    "min_max": "(lambda x: (x - x.min()) / (x.max() - x.min()))(torch.randn(3, 67, 53))",
    "var": "torch.var(torch.randn(101, 97))",
    "times_row_sum": "(lambda x: x * x[0].sum())(torch.randn(89, 113))",
}


class ZerosSum(torch.nn.Module):
    def forward(self, x):
        z = torch.zeros_like(x)
        return x + (z * z).sum(-1, keepdim=True)


class Cholesky(torch.nn.Module):
    def forward(self, a):
        return torch.linalg.cholesky(a @ a.mT + 3 * torch.eye(3))


INVARIANT = {"zeros_sum": (ZerosSum, (9, 13)), "cholesky": (Cholesky, (5, 3, 3))}


def _inputs(prog, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    args = main_func(prog.module).body.block.args[: prog.num_inputs]
    xs = [(0.5 + 2 * rng.standard_normal(tuple(a.type.get_shape()))).astype(np.float32) for a in args]
    return xs + [p.detach().float().numpy() for p in prog.args[prog.num_inputs :]]


def _reference(prog, inputs) -> np.ndarray:
    return prog.fn(*[torch.from_numpy(x).double() for x in inputs[: prog.num_inputs]]).detach().numpy()


def _top_level_reduces(module) -> list[str]:
    return [k.sym_name.data for k in module.walk() if isinstance(k, loop.KernelOp)
            if any(isinstance(o, loop.ForOp) and o.is_reduce for o in k.body.block.ops)]  # fmt: skip


@pytest.mark.parametrize("name", list(INVARIANT))
def test_sums_of_a_constant_fold_and_keep_meaning(name: str, monkeypatch):
    module, shape = INVARIANT[name]
    prog = capture(module(), torch.randn(shape), dtype=torch.float32)
    with monkeypatch.context() as m:  # the loop IR as it was: nothing folded
        m.setattr(fuse_loops, "fold_invariant_reductions", lambda root: False)
        before = prog.module.clone()
        run_pipeline(before, IR_PIPELINES["loop"].replace("fold-invariant-reductions,", ""))
    assert _top_level_reduces(before), "the case no longer has a reduce of a constant to fold"
    after = before.clone()
    run_pipeline(after, "fold-invariant-reductions")
    assert not _top_level_reduces(after)
    full = prog.module.clone()
    run_pipeline(full, IR_PIPELINES["loop"])
    assert not _top_level_reduces(full)
    for seed in (1, 2):
        inputs = _inputs(prog, seed)
        (old,) = exec_loop.run(before.clone(), inputs)
        (new,) = exec_loop.run(after, inputs)
        (end,) = exec_loop.run(full, inputs)
        np.testing.assert_allclose(new, old, rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(end, _reference(prog, inputs), rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("name", list(WHOLE))
def test_whole_tensor_statistics_split_keep_meaning_on_the_loop_executor(name: str):
    prog = capture_expression(WHOLE[name], dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["loop"] + ",split-nests")
    before = prog.module.clone()
    run_pipeline(prog.module, "split-row-stats")
    assert "_stat0" in str(prog.module)
    for seed in (1, 2):
        inputs = _inputs(prog, seed)
        (old,) = exec_loop.run(before.clone(), inputs)
        (new,) = exec_loop.run(prog.module.clone(), inputs)
        np.testing.assert_array_equal(new, old)  # the same ops in the same order


@pytest.mark.parametrize("name", list(WHOLE))
def test_whole_tensor_statistics_spread_over_the_gpu(name: str, nvcc_compile):
    prog = capture_expression(WHOLE[name], dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["loop"])
    run_pipeline(prog.module, kernel_schedule())
    funcs = [f for f in prog.module.walk() if isinstance(f, K.KernelFuncOp)]
    out_elems = int(np.prod(main_func(prog.module).function_type.outputs.data[0].get_shape()))
    for f in funcs:
        threads = int(np.prod(f.grid_extents)) * int(np.prod(f.block_extents))
        assert threads >= min(out_elems, 4096) or "stat" in f.sym_name.data or "init" in f.sym_name.data, (
            f"@{f.sym_name.data}: {list(f.grid_extents)} x {list(f.block_extents)} for {out_elems} outputs")
    for seed in (1, 2):
        inputs = _inputs(prog, seed)
        (out,) = exec_kernel.run(prog.module, inputs)
        ref = _reference(prog, inputs)
        np.testing.assert_allclose(out, ref, rtol=2e-5, atol=2e-5 * max(1.0, float(np.abs(ref).max())))
    nvcc_compile(print_cuda(prog.module))
