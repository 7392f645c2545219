"""top-k of a long row by a radix select (`_topk_radix`): the k-th key found a few bits a pass,
the k taken in index order by chunk counts and a search per slot, then ranked on their own box.
Values and indices against PyTorch over rows with NaNs, infinities, ties (across chunks, at
the threshold), -0.0 and 0.0, largest and smallest, along the last and the first dim, a row that
is no multiple of the chunk, float32, float64 and integers, k up to n. The path is forced
(`_topk_way`) on small rows; only a long row (CenterNet's decode) takes it on its own. Ties
(NaNs among them) take the lower index first, as `_sorted`'s ranks do: indices are checked
where the row's value is unique."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from dpl.bench.ab import patched
from dpl.frontend import aten, capture, capture_expression
from dpl.interpreters import exec_loop
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_frontend_ops import _stages  # noqa: E402


def _row(rng, n: int, dtype) -> np.ndarray:
    if np.issubdtype(dtype, np.integer):
        return rng.integers(-20, 20, n).astype(dtype)  # ties, across chunks and at the threshold
    x = np.round(rng.standard_normal(n) * 3 - 1, 1).astype(dtype)  # ties
    x[rng.choice(n, 6, replace=False)] = [np.nan, np.inf, -np.inf, np.nan, np.inf, -np.inf]
    x[rng.choice(n, 4, replace=False)] = [0.0, -0.0, -0.0, 0.0]
    return x


def _check(x: np.ndarray, vals, idx, k: int, dim: int, largest: bool) -> None:
    ref_v, ref_i = torch.topk(torch.from_numpy(x), k, dim=dim, largest=largest)
    np.testing.assert_array_equal(vals, ref_v.numpy())  # NaN equals NaN; -0.0 == 0.0 compares equal
    np.testing.assert_array_equal(np.take_along_axis(x, idx, axis=dim), vals)
    if vals.dtype.kind == "f":  # the values gathered keep their bits: -0.0 where x has it
        np.testing.assert_array_equal(np.signbit(np.take_along_axis(x, idx, axis=dim)), np.signbit(vals))
    xs = torch.from_numpy(x)
    for pos in np.ndindex(*idx.shape):
        v = xs[pos[0]] if dim == -1 else xs[:, pos[1]]
        nan = np.isnan(vals[pos]) if vals.dtype.kind == "f" else False
        same = torch.isnan(v) if nan else v == vals[pos]
        if same.sum() == 1:
            assert idx[pos] == ref_i.numpy()[pos]
        else:  # ties: the lowest indices first
            earlier = [i for i in np.nonzero(same.numpy())[0] if i < idx[pos]]
            row = idx[pos[0]] if dim == -1 else idx[:, pos[1]]
            assert same[idx[pos]] and all(i in row for i in earlier)


def _capture(shape, dtype, k: int, dim: int, largest: bool):
    with patched(aten, "_topk_way", lambda *a: "radix"):
        return capture_expression(f"torch.topk(torch.zeros({list(shape)}, dtype=torch.{dtype}), {k}, dim={dim}, "
                                  f"largest={largest})")  # fmt: skip


@pytest.mark.parametrize("largest", [True, False])
@pytest.mark.parametrize("dim", [-1, 0])
@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_topk_radix_matches_pytorch(largest: bool, dim: int, dtype):
    rng = np.random.default_rng(dim % 2 + 3 * largest + 7 * (dtype == np.int32))
    n, k = 301, 40  # chunks of 64: the last one padded
    x = np.stack([_row(rng, n, dtype) for _ in range(3)])
    if dim == 0:
        x = np.ascontiguousarray(x.T)
    prog = _capture(x.shape, x.dtype, k, dim, largest)
    run_pipeline(prog.module, IR_PIPELINES["loop"])
    sizes = [int(np.prod(o.memref.type.get_shape())) for o in prog.module.walk() if o.name == "memref.alloc"]
    assert max(sizes) < n * n, "an n x n box"
    vals, idx = exec_loop.run(prog.module, [x.copy()])
    _check(x, vals, idx, k, dim, largest)


@pytest.mark.parametrize("k", [1, 150, 299, 300])
def test_topk_radix_edges(k: int):
    """Few distinct values (the threshold's ties span many chunks), k = 1 and k = n."""
    rng = np.random.default_rng(k)
    x = rng.integers(0, 3, (2, 300)).astype(np.float32)
    x[0, 17] = np.nan
    x[1, 200:] = -0.0
    for largest in (True, False):
        prog = _capture(x.shape, x.dtype, k, -1, largest)
        run_pipeline(prog.module, IR_PIPELINES["loop"])
        vals, idx = exec_loop.run(prog.module, [x.copy()])
        _check(x, vals, idx, k, -1, largest)


def test_topk_radix_every_level():
    """torch, tensor, loop, tile and kernel executors (`test_frontend_ops`' stages), float64."""
    rng = np.random.default_rng(5)
    x = np.stack([_row(rng, 200, np.float64) for _ in range(2)])

    class TopK(torch.nn.Module):
        def forward(self, x):
            return torch.topk(x, 30, -1, largest=False)

    with patched(aten, "_topk_way", lambda *a: "radix"):
        prog = capture(TopK(), torch.from_numpy(x), dtype=torch.float64)
    ir = prog.module
    for level, passes, run in _stages():
        run_pipeline(ir, passes)
        with np.errstate(all="ignore"):
            vals, idx = run(ir, [x.copy()])
        _check(x, np.asarray(vals), np.asarray(idx), 30, -1, False)


def test_way_takes_radix_only_for_long_rows():
    """CenterNet's decode (the top 100 of 80 x 128 x 128 scores of 16 images) selects by radix;
    the measured cases of `_topk_plan` and `_topk_rounds` keep their ways."""
    assert aten._topk_way(16, 1310720, 100, 32) == "radix"
    assert aten._topk_way(16, 1310720, 100, 64) == "radix"
    for rows, n, k in [(256, 4096, 100), (16, 100003, 1000), (4096, 1024, 32), (32, 9999, 20), (64, 32000, 50),
                       (3, 100003, 1000), (8192, 8, 2)]:  # fmt: skip
        assert aten._topk_way(rows, n, k, 32) == "ranks", (rows, n, k)
    assert aten._topk_way(4, 32000, 16, 32) == "rounds"
    assert aten._topk_way(16, 1310720, 1310720, 32) == "ranks"  # k = n: no threshold to find
