"""top-k of few elements of a long row takes one element a round (`_topk_rounds`), no n x n box:
values and indices against PyTorch on the loop executor, over rows with NaNs, infinities, ties
and negative zeros, largest and smallest, along the last and the first dim, k = 1 and
TOPK_ROUNDS, float and integer. Ties (NaNs among them) take the lower index first, as
`_sorted`'s ranks do (PyTorch leaves that order open): indices are checked where the row's
value is unique."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from dpl.frontend import aten, capture_expression
from dpl.interpreters import exec_loop
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline


def _topk(x: np.ndarray, k: int, dim: int, largest: bool):
    prog = capture_expression(f"torch.topk(torch.zeros({list(x.shape)}, dtype=torch.{x.dtype}), {k}, dim={dim}, "
                              f"largest={largest})")  # fmt: skip
    run_pipeline(prog.module, IR_PIPELINES["loop"])
    sizes = [int(np.prod(o.memref.type.get_shape())) for o in prog.module.walk() if o.name == "memref.alloc"]
    assert max(sizes) <= x.size, "an n x n box"
    return exec_loop.run(prog.module, [x.copy()])


def _row(rng, n: int, dtype) -> np.ndarray:
    if dtype == np.int64:
        return rng.integers(-5, 5, n)  # many ties
    x = (rng.standard_normal(n) * 3 - 1).astype(dtype)
    x[rng.choice(n, 3, replace=False)] = [np.nan, np.inf, -np.inf]
    x[rng.choice(n, 2, replace=False)] = [0.0, -0.0]
    x[5] = x[6] = x[7]  # a tie
    return x


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim", [-1, 0])
@pytest.mark.parametrize("k", [1, 3, aten.TOPK_ROUNDS])
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_topk_rounds_match_pytorch(largest: bool, dim: int, k: int, dtype):
    rng = np.random.default_rng(k * 7 + dim + 3 * largest)
    n = aten.TOPK_ROW_PER_K * aten.TOPK_ROUNDS + 3
    x = np.stack([_row(rng, n, dtype) for _ in range(4)])
    if dim == 0:
        x = np.ascontiguousarray(x.T)
    vals, idx = _topk(x, k, dim, largest)
    ref_v, ref_i = torch.topk(torch.from_numpy(x), k, dim=dim, largest=largest)
    np.testing.assert_array_equal(vals, ref_v.numpy())  # NaN equals NaN; -0.0 == 0.0 compares equal
    np.testing.assert_array_equal(np.take_along_axis(x, idx, axis=dim), vals)
    xs = torch.from_numpy(x)
    for pos in np.ndindex(*idx.shape):
        v = xs[(*pos[:dim % 2], slice(None))] if dim == -1 else xs[:, pos[1]]
        hits = (v == vals[pos]).sum() if not np.isnan(vals[pos]) else torch.isnan(v).sum()
        if hits == 1:
            assert idx[pos] == ref_i.numpy()[pos]


def test_short_rows_keep_the_ranks():
    """k too large for its row: the ranks on the box, as before (same results)."""
    x = np.random.default_rng(0).standard_normal((3, 20)).astype(np.float32)
    prog = capture_expression("torch.topk(torch.zeros(3, 20), 5)")
    run_pipeline(prog.module, IR_PIPELINES["loop"])
    vals, _ = exec_loop.run(prog.module, [x.copy()])
    np.testing.assert_array_equal(vals, torch.topk(torch.from_numpy(x), 5).values.numpy())
