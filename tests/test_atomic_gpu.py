"""On the GPU: float max / min folded across blocks by the CUDA printer's integer-atomic helpers
(`dpl_atomic_max` / `dpl_atomic_min`: atomicMax on the signed bits of a value with the sign bit
clear, atomicMin on the unsigned bits of one with it set, and the other way round for min).
split-reduce spreads each column of these reductions over hundreds of blocks that all fold into
a few outputs; every result must equal PyTorch's exactly: columns all negative, all positive,
mixed, holding +0.0 and -0.0 (or only -0.0: the result keeps its sign), and -inf / +inf.

    python -m pytest -q -m gpu tests/test_atomic_gpu.py
"""

from __future__ import annotations

import pytest
import torch

from dpl.driver.compile import compile as dpl_compile

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU"),
]


def _columns(rows: int) -> torch.Tensor:
    """(rows, 64): column c holds normals shifted by c - 32 (all negative to all positive),
    columns 0-3 only signed zeros, column 4 -inf and negatives, column 5 +inf and positives."""
    g = torch.Generator().manual_seed(11)
    x = torch.randn(rows, 64, generator=g) + (torch.arange(64) - 32).float()
    zeros = torch.randint(0, 2, (rows, 4), generator=g).float()
    x[:, :4] = torch.where(zeros > 0, torch.tensor(0.0), torch.tensor(-0.0))
    x[:, 2] = -0.0  # only negative zeros
    x[:, 4] = -x[:, 4].abs() - 1
    x[rows // 3, 4] = float("-inf")
    x[:, 5] = x[:, 5].abs() + 1
    x[rows // 2, 5] = float("inf")
    return x


class Amax(torch.nn.Module):
    def forward(self, x):
        return x.amax(dim=0)


class Amin(torch.nn.Module):
    def forward(self, x):
        return x.amin(dim=0)


@pytest.mark.parametrize("module", [Amax(), Amin()], ids=["amax", "amin"])
def test_split_column_max_min_are_exact(module):
    x = _columns(44032).cuda()
    compiled = dpl_compile(module, x, tune_cache=False)
    assert compiled.num_kernels >= 2, "the reduction is split over blocks (an init kernel first)"
    out = compiled(x, poison=True)
    ref = module(x)
    assert torch.equal(out, ref), (out - ref).abs().max()
    assert torch.signbit(out[2]), "a column of only -0.0 folds to -0.0"


class Counts(torch.nn.Module):
    """64-bit integer sums of few long rows: the printer adds them as unsigned long long (CUDA
    has no signed 64-bit atomicAdd; before, nvrtc refused the kernel)."""

    def forward(self, x):
        return (x > 0).sum(-1), (x * 1000).long().sum(-1)


def test_split_int64_sums_are_exact():
    x = torch.randn(3, 1000003, generator=torch.Generator().manual_seed(5)).cuda() - 0.1
    compiled = dpl_compile(Counts(), x, tune_cache=False)
    assert compiled.num_kernels >= 2, "the sums are split over blocks (an init kernel first)"
    outs = compiled(x, poison=True)
    for out, ref in zip(outs, Counts()(x)):
        assert torch.equal(out, ref), (out, ref)
    assert (outs[1] < 0).all(), "negative sums survive the unsigned adds"


class Aggregate(torch.nn.Module):
    """GraphSAGE's mean aggregation: each edge's source features added into its target by
    index_add (a scatter-add: atomics, work in proportion to the edges), over the in-degree."""

    def __init__(self, nodes: int, edges: int):
        super().__init__()
        g = torch.Generator().manual_seed(7)
        self.register_buffer("src", torch.randint(0, nodes, (edges,), generator=g))
        self.register_buffer("dst", torch.randint(0, nodes // 3, (edges,), generator=g))  # many repeats

    def forward(self, x):
        agg = torch.zeros_like(x).index_add_(0, self.dst, x[self.src])
        deg = x.new_zeros(x.shape[0]).index_add_(0, self.dst, torch.ones_like(self.dst, dtype=x.dtype))
        return agg / deg.clamp(min=1)[:, None], deg


def test_index_add_of_many_edges_matches_float64():
    """200003 edges into 6667 of 20001 nodes (about 30 each), 65 features; the counts exact,
    the means against float64 within fp32 summation error (the adds' order is any)."""
    m = Aggregate(20001, 200003)  # captured on the CPU (its index buffers become @main's arguments)
    x = torch.randn(20001, 65, generator=torch.Generator().manual_seed(8))
    compiled = dpl_compile(m, x, tune_cache=False)
    mean, deg = compiled(x.cuda(), poison=True)
    ref_mean, ref_deg = m.double().cuda()(x.double().cuda())
    assert torch.equal(deg.double(), ref_deg), "in-degrees are exact sums of ones"
    assert (mean.double() - ref_mean).abs().max() < 1e-5
