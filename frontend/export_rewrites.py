"""Python stand-ins for the PyTorch functions torch.export cannot trace, applied while exporting.

Some PyTorch functions check their data on the way (`torch.cov` and `torch.corrcoef` compare
tensors with `aten.equal` in C++, `torch.quantile` with a q tensor on the GPU too,
`F.gaussian_nll_loss` that no variance is negative), which
export's fake tensors cannot answer, so the whole program fails to export ("torch.export failed: aten.equal.default"). `ExportRewrites` is a
`TorchFunctionMode` that, while active, answers such calls with the same computation written in
ops that export (the same formula as PyTorch's implementation, without the check). A call it
cannot rewrite (cov with frequency or observation weights) goes to PyTorch unchanged and fails
as before.
"""

from __future__ import annotations

import math

import torch
import torch.nn.functional as F
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


def quantile(x: torch.Tensor, q, dim=None, keepdim: bool = False, *, interpolation: str = "linear",
             ignore_nan: bool = False) -> torch.Tensor:
    """torch.quantile (nanquantile where `ignore_nan`) as PyTorch computes it, without checking
    that q lies in [0, 1]: each row (all elements where dim is None) sorted, NaN last; the rank
    q (n - 1), n the row's length, or its count of numbers ignoring NaN (0 at least), or the
    last where the row holds a NaN; rounded by `interpolation` (lower, higher, nearest) or the
    values at its floor and ceiling interpolated by lerp (linear; midpoint by 0.5). One result
    per q first (none for a single q)."""
    qt = torch.as_tensor(q, dtype=x.dtype, device=x.device)
    rows = x.reshape(-1) if dim is None or x.dim() == 0 else x.movedim(dim, -1)
    s = rows.sort(-1).values
    n = s.shape[-1]
    nan = s.isnan()
    if ignore_nan:
        ranks = (qt.reshape(-1) * (nan.logical_not().sum(-1, keepdim=True) - 1)).clamp(min=0)
    else:
        ranks = torch.where(nan.any(-1, keepdim=True), float(n - 1), qt.reshape(-1) * (n - 1))
    if interpolation == "lower":
        ranks = ranks.floor()
    elif interpolation == "higher":
        ranks = ranks.ceil()
    elif interpolation == "nearest":
        ranks = ranks.round()
    below = ranks.long()
    out = s.gather(-1, below)
    if interpolation in ("linear", "midpoint"):
        weights = torch.full_like(ranks, 0.5) if interpolation == "midpoint" else ranks - below
        out = torch.lerp(out, s.gather(-1, ranks.ceil().long()), weights)
    if keepdim:  # the reduced dims kept as 1 before the q dim
        out = out.reshape(*[1] * x.dim(), -1) if dim is None or x.dim() == 0 else out.unsqueeze(dim % x.dim())
    out = out.movedim(-1, 0)
    return out.squeeze(0) if qt.dim() == 0 else out


def gaussian_nll_loss(input: torch.Tensor, target: torch.Tensor, var, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> torch.Tensor:
    """F.gaussian_nll_loss as PyTorch computes it, without checking that no variance is
    negative: var (a float, the input's shape, one dim short of it, or one broadcast dim off
    it) clamped to at least `eps`; 0.5 (log var + (input - target)^2 / var), plus 0.5 log 2 pi
    where `full`; reduced by `reduction`."""
    if isinstance(var, float):
        var = var * torch.ones_like(input)
    if var.size() != input.size():
        if input.size()[:-1] == var.size():
            var = torch.unsqueeze(var, -1)
        elif not (input.ndim == var.ndim and sum(v for i, v in zip(input.size(), var.size()) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    var = var.clamp(min=eps)
    loss = 0.5 * (torch.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return loss.mean() if reduction == "mean" else loss.sum() if reduction == "sum" else loss


class ExportRewrites(TorchFunctionMode):
    """While active, torch.cov / Tensor.cov and torch.corrcoef / Tensor.corrcoef (unweighted)
    and torch.quantile / nanquantile (and their Tensor methods) and F.gaussian_nll_loss run as
    `cov` / `corrcoef` / `quantile` / `gaussian_nll_loss` above."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in (torch.cov, torch.Tensor.cov) and kwargs.get("fweights") is None and kwargs.get("aweights") is None:
            return cov(*args, **kwargs)
        if func in (torch.corrcoef, torch.Tensor.corrcoef):
            return corrcoef(*args, **kwargs)
        if func in (torch.quantile, torch.Tensor.quantile, torch.nanquantile, torch.Tensor.nanquantile) and kwargs.get("out") is None:
            ignore_nan = func in (torch.nanquantile, torch.Tensor.nanquantile)
            return quantile(*args, **kwargs, ignore_nan=ignore_nan)
        if func is F.gaussian_nll_loss:
            return gaussian_nll_loss(*args, **kwargs)
        return func(*args, **kwargs)
