"""Python stand-ins for the PyTorch functions torch.export cannot trace, applied while exporting.

Some PyTorch functions check their data on the way (`torch.cov` and `torch.corrcoef` compare
tensors with `aten.equal` in C++, `torch.quantile` with a q tensor on the GPU too,
`F.gaussian_nll_loss` that no variance is negative, `torch.linalg.inv` / `det` / `solve` that no
matrix is singular), which
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


#: The largest matrix `solve` / `det` eliminate (unrolled: one step per column); a larger one goes
#: to PyTorch unchanged and fails to export as before.
MAX_ELIMINATION = 16


def _pivot(m: torch.Tensor, k: int) -> tuple[torch.Tensor, torch.Tensor]:
    """`m` (..., n, c) with row k swapped for the row at or below k whose column k is largest in
    magnitude (partial pivoting), and whether a swap happened (...)."""
    n = m.shape[-2]
    p = m[..., k:, k].abs().argmax(-1) + k
    rows = torch.arange(n, device=m.device)
    perm = torch.where(rows == k, p[..., None], torch.where(rows == p[..., None], k, rows))
    return m.gather(-2, perm[..., None].expand(m.shape)), p != k


def solve(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """torch.linalg.solve(a, b) (left), a (..., n, n), b (..., n) or (..., n, k) (batches
    broadcast), without the singularity check: Gauss-Jordan elimination with partial pivoting on
    [a | b]; a singular matrix gives inf / NaN where PyTorch raises."""
    vector = b.dim() == 1 or (b.dim() == a.dim() - 1 and b.shape == a.shape[:-1])  # PyTorch's rule
    rhs = b[..., None] if vector else b
    batch = torch.broadcast_shapes(a.shape[:-2], rhs.shape[:-2])
    m = torch.cat([a.expand(*batch, *a.shape[-2:]), rhs.expand(*batch, *rhs.shape[-2:])], -1)
    n = a.shape[-1]
    rows = torch.arange(n, device=a.device)[:, None]
    for k in range(n):
        m, _ = _pivot(m, k)
        row = m[..., k:k + 1, :] / m[..., k:k + 1, k:k + 1]
        m = torch.where(rows == k, row, m - m[..., :, k:k + 1] * row)
    x = m[..., n:]
    return x[..., 0] if vector else x


def inv(a: torch.Tensor) -> torch.Tensor:
    """torch.linalg.inv without the singularity check: `solve(a, I)`."""
    eye = torch.eye(a.shape[-1], dtype=a.dtype, device=a.device)
    return solve(a, eye.expand(a.shape))


def det(a: torch.Tensor) -> torch.Tensor:
    """torch.linalg.det: the product of the pivots of Gaussian elimination with partial pivoting,
    negated per row swap (0 for a singular matrix, as PyTorch's LU gives)."""
    n = a.shape[-1]
    rows = torch.arange(n, device=a.device)[:, None]
    out = torch.ones(a.shape[:-2], dtype=a.dtype, device=a.device)
    m = a
    for k in range(n):
        m, swapped = _pivot(m, k)
        pivot = m[..., k, k]
        out = out * torch.where(swapped, -pivot, pivot)
        below = (rows > k) & (pivot[..., None, None] != 0)
        m = torch.where(below, m - m[..., :, k:k + 1] / pivot[..., None, None] * m[..., k:k + 1, :], m)
    return out


def _square(a) -> bool:
    """A batch of square matrices small enough to eliminate unrolled."""
    return (isinstance(a, torch.Tensor) and a.dim() >= 2 and a.shape[-1] == a.shape[-2]
            and 0 < a.shape[-1] <= MAX_ELIMINATION and a.is_floating_point())


class ExportRewrites(TorchFunctionMode):
    """While active, torch.cov / Tensor.cov and torch.corrcoef / Tensor.corrcoef (unweighted)
    and torch.quantile / nanquantile (and their Tensor methods), F.gaussian_nll_loss, and
    torch.linalg.inv / det / solve (torch.inverse, torch.det and the Tensor methods; matrices of
    at most MAX_ELIMINATION rows) run as `cov` / `corrcoef` / `quantile` / `gaussian_nll_loss` /
    `inv` / `det` / `solve` above."""

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
        if func in (torch.linalg.inv, torch.inverse, torch.Tensor.inverse) and not kwargs and _square(args[0]):
            return inv(args[0])
        if func in (torch.linalg.det, torch.det, torch.Tensor.det) and not kwargs and _square(args[0]):
            return det(args[0])
        if (func is torch.linalg.solve and len(args) == 2 and not kwargs and _square(args[0])
                and isinstance(args[1], torch.Tensor) and args[1].dtype == args[0].dtype):
            return solve(*args)
        return func(*args, **kwargs)
