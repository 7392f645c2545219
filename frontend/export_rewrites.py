"""Python stand-ins for the PyTorch functions torch.export cannot trace, applied while exporting.

Some PyTorch functions check their data on the way (`torch.cov` and `torch.corrcoef` compare
tensors with `aten.equal` in C++), which export's fake tensors cannot answer, so the whole
program fails to export ("torch.export failed: aten.equal.default"). `ExportRewrites` is a
`TorchFunctionMode` that, while active, answers such calls with the same computation written in
ops that export (the same formula as PyTorch's implementation, without the check). A call it
cannot rewrite (cov with frequency or observation weights) goes to PyTorch unchanged and fails
as before.
"""

from __future__ import annotations

import torch
from torch.overrides import TorchFunctionMode


def cov(x: torch.Tensor, *, correction: int = 1, fweights=None, aweights=None) -> torch.Tensor:
    """torch.cov without weights: rows are variables, columns observations (a 1-d input one
    variable, a 0-d result); the sum of products of deviations over max(0, N - correction)."""
    rows = x if x.dim() == 2 else x.reshape(1, -1)
    dev = rows - rows.mean(1, keepdim=True)
    c = (dev @ dev.transpose(0, 1).conj()) / max(0, rows.shape[1] - correction)
    return c if x.dim() == 2 else c.reshape(())


def corrcoef(x: torch.Tensor) -> torch.Tensor:
    """torch.corrcoef: the covariance over the outer product of the standard deviations,
    clipped into [-1, 1] (a 0-d covariance divided by itself)."""
    c = cov(x)
    if c.dim() == 0:
        return c / c
    std = torch.sqrt(torch.diagonal(c))
    return torch.clip(c / std.reshape(-1, 1) / std.reshape(1, -1), -1, 1)


class ExportRewrites(TorchFunctionMode):
    """While active, torch.cov / Tensor.cov and torch.corrcoef / Tensor.corrcoef (unweighted)
    run as `cov` / `corrcoef` above."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in (torch.cov, torch.Tensor.cov) and kwargs.get("fweights") is None and kwargs.get("aweights") is None:
            return cov(*args, **kwargs)
        if func in (torch.corrcoef, torch.Tensor.corrcoef):
            return corrcoef(*args, **kwargs)
        return func(*args, **kwargs)
