"""Sorts of long rows by merging (`aten._merge_sort`): leaves ranked on their own small box, then
a level per doubling, each element placed by a binary search of the other half. Forced on short
rows (MERGE_LEAF 4) so that the executors run every level: values and indices exactly PyTorch's
(stable: ties keep their order) over rows with NaNs, infinities, ties and negative zeros, both
directions, along the last and the first dim, a row that is no power of two (padded), floats of
32 and 64 bits (keys over positions, or positions carried beside 64-bit keys) and integers; one
program through every level's executor and nvcc; the plan; and the real thing on the GPU."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from dpl.backend.cuda_printer import print_cuda
from dpl.bench.ab import patched
from dpl.driver.compile import compile as dpl_compile
from dpl.frontend import aten, capture_expression
from dpl.interpreters import exec_kernel, exec_loop, exec_tensor, exec_tile, exec_torch
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)


def _row(rng, n: int, dtype) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-9, 9, n).astype(dtype)  # ties
    x = (rng.standard_normal(n) * 3 - 1).astype(dtype)
    x[rng.choice(n, 4, replace=False)] = [np.nan, np.inf, -np.inf, np.nan]
    x[rng.choice(n, 2, replace=False)] = [0.0, -0.0]
    x[5] = x[6] = x[7]  # a tie
    return x


def _capture(expr: str):
    """`expr` captured with rows longer than 4 merging from leaves of 4."""
    with patched(aten, "MERGE_LEAF", 4), patched(aten, "_sort_plan", lambda rows, n, k=0: n > 4):
        aten._topk_plan.cache_clear()  # it asks _sort_plan
        prog = capture_expression(expr)
    aten._topk_plan.cache_clear()
    return prog


def _no_box(module, n: int) -> None:
    sizes = [int(np.prod(o.result.type.get_shape())) for o in module.walk()
             if o.name.startswith("torch.") and o.results and hasattr(o.results[0].type, "get_shape")]  # fmt: skip
    assert max(sizes) < n * n, "an n x n box"


@pytest.mark.parametrize("descending", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32, np.int64])
def test_merge_sort_matches_pytorch(descending: bool, dim: int, dtype):
    rng = np.random.default_rng(dim % 2 + 3 * descending + 7 * np.dtype(dtype).itemsize)
    n = 37  # padded to 64: leaves of 4, four levels
    x = np.stack([_row(rng, n, dtype) for _ in range(3)])
    if dim == 0:
        x = np.ascontiguousarray(x.T)
    prog = _capture(f"torch.sort(torch.zeros({list(x.shape)}, dtype=torch.{x.dtype}), dim={dim}, "
                    f"descending={descending}, stable=True)")  # fmt: skip
    _no_box(prog.module, n)
    run_pipeline(prog.module, IR_PIPELINES["loop"])
    vals, idx = exec_loop.run(prog.module, [x.copy()])
    ref_v, ref_i = torch.sort(torch.from_numpy(x), dim=dim, descending=descending, stable=True)
    np.testing.assert_array_equal(vals, ref_v.numpy())
    np.testing.assert_array_equal(idx, ref_i.numpy())


@pytest.mark.parametrize("expr,ref", [
    ("torch.argsort({x}, dim=1, stable=True)", None),
    ("torch.median({x}, dim=1)", None),
    ("torch.nanmedian({x}, dim=1)", None),
    ("torch.topk({x}, 9, dim=1)", "[t[:, :9] for t in torch.sort(x, dim=1, descending=True, stable=True)]"),
    ("torch.kthvalue({x}, 30, dim=1)", None),
])
def test_users_of_the_order_match_pytorch(expr: str, ref: str | None):
    """argsort, the medians (nanmedian through the ranks), top-k and kthvalue merging: ties
    (the repeated value at 5..7) keep the lower index first, as PyTorch's stable sort (its
    top-k leaves their order open: compared with the stable sort's first k)."""
    rng = np.random.default_rng(5)
    n = 37
    x = np.stack([_row(rng, n, np.float32) for _ in range(3)])
    x[1] = np.where(np.isnan(x[1]), 0.5, x[1])  # a row without NaN: medians of numbers
    prog = _capture(expr.format(x=f"torch.zeros({list(x.shape)})"))
    run_pipeline(prog.module, IR_PIPELINES["loop"])
    outs = exec_loop.run(prog.module, [x.copy()])
    refs = eval(ref or expr.format(x="x"), {"torch": torch, "x": torch.from_numpy(x)})
    refs = [refs] if isinstance(refs, torch.Tensor) else list(refs)
    for o, r in zip(outs, refs):
        if "median" in expr and r.dtype == torch.int64:  # the index of the NaN row's median is open
            o, r = np.asarray(o)[1:], r.numpy()[1:]
        np.testing.assert_array_equal(o, np.asarray(r))


def test_every_level_and_nvcc():
    """One program (descending, float32, a row padded from 23 to 32) on the torch, tensor, loop,
    tile and kernel executors (the kernel executor checks races), and its CUDA through nvcc."""
    rng = np.random.default_rng(1)
    x = np.stack([_row(rng, 23, np.float32) for _ in range(2)])
    prog = _capture(f"torch.sort(torch.zeros({list(x.shape)}), dim=1, descending=True)")
    ref_v, ref_i = torch.sort(torch.from_numpy(x), dim=1, descending=True, stable=True)
    levels = [("torch", "", exec_torch.run), ("tensor", IR_PIPELINES["tensor"], exec_tensor.run),
              ("loop", IR_PIPELINES["loop"][len(IR_PIPELINES["tensor"]) + 1:], exec_loop.run),
              ("tile", IR_PIPELINES["tile"][len(IR_PIPELINES["loop"]) + 1:], exec_tile.run),
              ("kernel", IR_PIPELINES["kernel"][len(IR_PIPELINES["tile"]) + 1:], exec_kernel.run)]  # fmt: skip
    for level, passes, run in levels:
        run_pipeline(prog.module, passes)
        vals, idx = run(prog.module, [x.copy()])
        np.testing.assert_array_equal(vals, ref_v.numpy(), err_msg=level)
        np.testing.assert_array_equal(idx, ref_i.numpy(), err_msg=level)
    if NVCC is None:
        pytest.skip("nvcc not found")
    cu = Path(os.environ.get("TMPDIR", "/tmp")) / f"merge_sort_{os.getpid()}.cu"
    cu.write_text(print_cuda(prog.module))
    res = subprocess.run([NVCC, "-gencode=arch=compute_90a,code=sm_90a", "-c", "-o", str(cu.with_suffix(".o")), str(cu)],
                         capture_output=True, text=True, timeout=600)  # fmt: skip
    cu.unlink()
    assert res.returncode == 0, res.stderr[:4000]


def test_plan_merges_long_rows_only():
    """Few short rows stay on their box (a launch or two, where merging takes one a level); many
    rows of 128 merge (H200: 4096 x 128 0.086 ms merging, 0.116 on the box) and so does a
    vocabulary-long row (its box would be n^2 = 10^9 compares)."""
    assert not aten._sort_plan(64, 128, 128)
    assert not aten._sort_plan(1, 300, 300)
    assert not aten._sort_plan(8192, aten.MERGE_LEAF, aten.MERGE_LEAF)
    assert aten._sort_plan(4096, 128, 128)
    assert aten._sort_plan(64, 32000)
    assert aten._sort_plan(1, 100003)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("shape,descending", [((64, 32000), True), ((3, 5003), False)])
def test_merge_sort_on_the_gpu(shape, descending: bool):
    """A vocabulary's logits and a prime-length row: exactly PyTorch's values and indices
    (random normals: no ties)."""
    class Sort(torch.nn.Module):
        def forward(self, x):
            return torch.sort(x, -1, descending=descending)

    x = torch.randn(*shape, device="cuda", generator=torch.Generator("cuda").manual_seed(0))
    vals, idx = dpl_compile(Sort(), x, tune_cache=False)(x)
    ref_v, ref_i = torch.sort(x, -1, descending=descending)
    assert torch.equal(vals, ref_v)
    assert torch.equal(idx, ref_i)
