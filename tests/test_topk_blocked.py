"""top-k by ranks of a long row in blocks (`_topk_blocked`): each block's top k on its own small
box, then the top k of the candidates, never the n x n box. Values and indices against PyTorch
on the loop executor, over rows with NaNs, infinities, ties and negative zeros, largest and
smallest, along the last and the first dim, a row that is no multiple of the block (padded),
float and integer. Ties (NaNs among them) take the lower index first, as `_sorted`'s ranks do
(PyTorch leaves that order open): indices are checked where the row's value is unique."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from dpl.bench.ab import patched
from dpl.driver.compile import compile as dpl_compile
from dpl.frontend import aten, capture_expression
from dpl.interpreters import exec_loop
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline


def _row(rng, n: int, dtype) -> np.ndarray:
    if dtype == np.int64:
        return rng.integers(-50, 50, n)  # ties
    x = (rng.standard_normal(n) * 3 - 1).astype(dtype)
    x[rng.choice(n, 4, replace=False)] = [np.nan, np.inf, -np.inf, np.nan]
    x[rng.choice(n, 2, replace=False)] = [0.0, -0.0]
    x[5] = x[6] = x[7]  # a tie
    return x


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim", [-1, 0])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_topk_blocked_matches_pytorch(largest: bool, dim: int, dtype):
    rng = np.random.default_rng(dim % 2 + 3 * largest + 7 * (dtype == np.int64))
    n, k = 301, 20  # blocks of 64 or 128: the last one padded
    x = np.stack([_row(rng, n, dtype) for _ in range(3)])
    if dim == 0:
        x = np.ascontiguousarray(x.T)
    with patched(aten, "TOPK_LEVEL_S", 0.0):
        aten._topk_plan.cache_clear()
        assert aten._topk_plan(3, n, k)[1] > 0
        prog = capture_expression(f"torch.topk(torch.zeros({list(x.shape)}, dtype=torch.{x.dtype}), {k}, dim={dim}, "
                                  f"largest={largest})")  # fmt: skip
    aten._topk_plan.cache_clear()
    run_pipeline(prog.module, IR_PIPELINES["loop"])
    sizes = [int(np.prod(o.memref.type.get_shape())) for o in prog.module.walk() if o.name == "memref.alloc"]
    assert max(sizes) < n * n, "an n x n box"
    vals, idx = exec_loop.run(prog.module, [x.copy()])
    ref_v, ref_i = torch.topk(torch.from_numpy(x), k, dim=dim, largest=largest)
    np.testing.assert_array_equal(vals, ref_v.numpy())  # NaN equals NaN; -0.0 == 0.0 compares equal
    np.testing.assert_array_equal(np.take_along_axis(x, idx, axis=dim), vals)
    xs = torch.from_numpy(x)
    for pos in np.ndindex(*idx.shape):
        v = xs[pos[0]] if dim == -1 else xs[:, pos[1]]
        hits = (v == vals[pos]).sum() if not np.isnan(vals[pos]) else torch.isnan(v).sum()
        if hits == 1:
            assert idx[pos] == ref_i.numpy()[pos]
        else:  # ties: the lowest indices first
            same = torch.isnan(v) if np.isnan(vals[pos]) else v == vals[pos]
            assert same[idx[pos]]


def test_plan_keeps_the_box_for_short_rows():
    """Few compares: the blocks' launches cost more than they save. A long row takes blocks or
    merges (`_sort_plan`; H200, session 42: the top 50 of 64 x 32000 0.51 ms merging, 0.66 in
    blocks), never the n x n box."""
    assert aten._topk_plan(64, 128, 20)[1] == 0 and not aten._sort_plan(64, 128, 20)
    assert aten._topk_plan(64, 32000, 50)[1] > 0 or aten._sort_plan(64, 32000, 50)
    assert aten._topk_plan(32, 9999, 20)[1] > 0


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("shape,k,largest", [((64, 32000), 50, True), ((3, 100003), 1000, False)])
def test_topk_blocked_on_the_gpu(shape, k: int, largest: bool):
    """Top-k sampling's filter size (four levels of blocks, 128 to 256 wide, then a box) and a
    large k (five levels of 2048; merging the row would be cheaper, `_sort_plan` is held off):
    exactly PyTorch's values, and its indices (random normals: no ties)."""
    class TopK(torch.nn.Module):
        def forward(self, x):
            return torch.topk(x, k, -1, largest=largest)

    x = torch.randn(*shape, generator=torch.Generator().manual_seed(9)).cuda()
    with patched(aten, "_sort_plan", lambda rows, n, k=0: False):  # the large k would merge
        aten._topk_plan.cache_clear()
        assert aten._topk_plan(shape[0], shape[1], k)[1] > 0
        compiled = dpl_compile(TopK(), x, tune_cache=False)
    aten._topk_plan.cache_clear()
    vals, idx = compiled(x, poison=True)
    ref_v, ref_i = torch.topk(x, k, -1, largest=largest)
    assert torch.equal(vals, ref_v) and torch.equal(idx, ref_i)
