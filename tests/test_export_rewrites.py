"""The stand-ins `ExportRewrites` gives torch.export (frontend/export_rewrites.py) compute what
PyTorch's own functions do: quantile and nanquantile over every dim and none, kept or not, each
interpolation, a float q, a 0-d and a 1-d q tensor (0 and 1 among them), rows with a NaN and a
column of NaN, and a 0-d input - exactly equal (the same sort, ranks and lerp)."""

from __future__ import annotations

import itertools

import pytest
import torch

from dpl.frontend.export_rewrites import quantile


def _same(a: torch.Tensor, b: torch.Tensor) -> bool:
    return a.shape == b.shape and torch.equal(a.isnan(), b.isnan()) and torch.equal(a.nan_to_num(), b.nan_to_num())


@pytest.mark.parametrize("ignore_nan", [False, True])
@pytest.mark.parametrize("interpolation", ["linear", "lower", "higher", "nearest", "midpoint"])
def test_quantile_is_pytorchs(interpolation: str, ignore_nan: bool):
    x = torch.randn(4, 7, 5, generator=torch.Generator().manual_seed(0))
    x[0, 2, 1] = float("nan")
    x[1, :, 3] = float("nan")
    f = torch.nanquantile if ignore_nan else torch.quantile
    for dim, keepdim, q in itertools.product([None, 0, 1, -1, 2], [False, True],
                                             [0.3, torch.tensor(0.5), torch.tensor([0.0, 0.25, 0.999, 1.0])]):  # fmt: skip
        ref = f(x, q, dim=dim, keepdim=keepdim, interpolation=interpolation)
        got = quantile(x, q, dim, keepdim, interpolation=interpolation, ignore_nan=ignore_nan)
        assert _same(got, ref), (dim, keepdim, q)
    for dim, keepdim in ((None, False), (0, True)):
        ref = f(torch.tensor(2.0), 0.5, dim=dim, keepdim=keepdim, interpolation=interpolation)
        assert _same(quantile(torch.tensor(2.0), 0.5, dim, keepdim, interpolation=interpolation, ignore_nan=ignore_nan), ref)
