"""The stand-ins `ExportRewrites` gives torch.export (frontend/export_rewrites.py) compute what
PyTorch's own functions do: quantile and nanquantile over every dim and none, kept or not, each
interpolation, a float q, a 0-d and a 1-d q tensor (0 and 1 among them), rows with a NaN and a
column of NaN, and a 0-d input - exactly equal (the same sort, ranks and lerp); and
gaussian_nll_loss for each shape of var and reduction, a float var, full or not."""

from __future__ import annotations

import itertools

import pytest
import torch

from dpl.frontend.export_rewrites import ExportRewrites, gaussian_nll_loss, quantile


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


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("full", [False, True])
def test_gaussian_nll_loss_is_pytorchs(reduction: str, full: bool):
    g = torch.Generator().manual_seed(1)
    x, y = torch.randn(6, 5, 3, generator=g), torch.randn(6, 5, 3, generator=g)
    for var in (torch.rand(6, 5, 3, generator=g), torch.rand(6, 5, generator=g), torch.rand(6, 1, 3, generator=g),
                torch.zeros(6, 5, 3), 0.7):  # fmt: skip
        ref = torch.nn.functional.gaussian_nll_loss(x, y, var, full=full, reduction=reduction)
        torch.testing.assert_close(gaussian_nll_loss(x, y, var, full=full, reduction=reduction), ref, rtol=0, atol=0)
    with pytest.raises(ValueError, match="incorrect size"):
        gaussian_nll_loss(x, y, torch.rand(6, 4, 3))


def test_gaussian_nll_loss_exports():
    class Loss(torch.nn.Module):
        def forward(self, x, y):
            return torch.nn.GaussianNLLLoss()(x, y, torch.nn.functional.softplus(y) + 0.1)

    x, y = torch.randn(8, 4), torch.randn(8, 4)
    with ExportRewrites():
        ep = torch.export.export(Loss(), (x, y))
    torch.testing.assert_close(ep.module()(x, y), Loss()(x, y))
