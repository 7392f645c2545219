"""Python stand-ins for the PyTorch functions torch.export cannot trace, applied while exporting.

Some PyTorch functions check their data on the way (`torch.cov` and `torch.corrcoef` compare
tensors with `aten.equal` in C++, `torch.quantile` with a q tensor on the GPU too,
`F.gaussian_nll_loss` that no variance is negative, `torch.linalg.inv` / `det` / `solve` /
`cholesky` that no matrix is singular or indefinite), which export's fake tensors cannot
answer, so the whole program fails to export ("torch.export failed: aten.equal.default") or
keeps the check as an effect dpl refuses. Others reach ATen ops no handler takes (a triangular
solve, slogdet's LU, batch_norm with batch statistics: a BatchNorm built with
track_running_stats=False normalises by them even in eval, and updates nothing).
`ExportRewrites` is a `TorchFunctionMode` that, while active, answers such calls with the same
computation written in ops that export (the same formula as PyTorch's implementation, without
the check; small matrices by elimination or substitution unrolled). A call it cannot rewrite (cov with frequency or observation weights, a matrix of
more than MAX_ELIMINATION rows) goes to PyTorch unchanged and fails as before.
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


def batch_norm_batch_stats(input: torch.Tensor, weight=None, bias=None, eps: float = 1e-5) -> torch.Tensor:
    """F.batch_norm with no running statistics (a BatchNorm with track_running_stats=False, in
    eval too): each channel (dim 1) normalised by its mean and biased variance over the batch and
    the trailing dims, then scaled and shifted. Nothing is updated, so it is pure."""
    dims = [0, *range(2, input.dim())]
    mean = input.mean(dims, keepdim=True)
    var = input.var(dims, correction=0, keepdim=True)
    y = (input - mean) * torch.rsqrt(var + eps)
    shape = [1, -1] + [1] * (input.dim() - 2)
    if weight is not None:
        y = y * weight.reshape(shape)
    return y if bias is None else y + bias.reshape(shape)


def _batch_norm_without_stats(args, kwargs) -> dict | None:
    """The arguments of an F.batch_norm call with no running statistics (training, as PyTorch
    requires then): input, weight, bias, eps; None for any other call."""
    names = ("input", "running_mean", "running_var", "weight", "bias", "training", "momentum", "eps")
    bound = {**dict(zip(names, args)), **kwargs}
    if bound.get("running_mean") is not None or bound.get("running_var") is not None or not bound.get("training"):
        return None
    return {"input": bound["input"], "weight": bound.get("weight"), "bias": bound.get("bias"), "eps": bound.get("eps", 1e-5)}


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


def _lu_pivots(a: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
    """The pivots (..., n) of Gaussian elimination with partial pivoting of `a`, and whether
    each step swapped rows (..., n); a zero pivot (a singular matrix) eliminates nothing."""
    n = a.shape[-1]
    rows = torch.arange(n, device=a.device)[:, None]
    pivots, swaps, m = [], [], a
    for k in range(n):
        m, swapped = _pivot(m, k)
        pivot = m[..., k, k]
        pivots.append(pivot)
        swaps.append(swapped)
        below = (rows > k) & (pivot[..., None, None] != 0)
        m = torch.where(below, m - m[..., :, k:k + 1] / pivot[..., None, None] * m[..., k:k + 1, :], m)
    return torch.stack(pivots, -1), torch.stack(swaps, -1)


def det(a: torch.Tensor) -> torch.Tensor:
    """torch.linalg.det: the product of the pivots of Gaussian elimination with partial pivoting,
    negated per row swap (0 for a singular matrix, as PyTorch's LU gives)."""
    pivots, swaps = _lu_pivots(a)
    out = torch.where(swaps[..., 0], -pivots[..., 0], pivots[..., 0])
    for k in range(1, a.shape[-1]):
        out = out * torch.where(swaps[..., k], -pivots[..., k], pivots[..., k])
    return out


def slogdet(a: torch.Tensor):
    """torch.linalg.slogdet: (sign, log |det|) from the pivots (sign 0 and -inf where singular)."""
    pivots, swaps = _lu_pivots(a)
    sign = torch.where(swaps, -1.0, 1.0).to(a.dtype).prod(-1) * torch.sign(pivots).prod(-1)
    return torch.return_types.linalg_slogdet((sign, pivots.abs().log().sum(-1)))


def logdet(a: torch.Tensor) -> torch.Tensor:
    """torch.logdet: log det, NaN where the determinant is negative (-inf where it is 0)."""
    sign, logabs = slogdet(a)
    return torch.where(sign < 0, torch.nan, logabs)


def cholesky(a: torch.Tensor, upper: bool = False) -> torch.Tensor:
    """torch.linalg.cholesky without the positive-definiteness check, from `a`'s lower triangle,
    column by column: L[j, j] = sqrt(a[j, j] - sum_k<j L[j, k]^2), below it L[i, j] = (a[i, j] -
    sum_k<j L[i, k] L[j, k]) / L[j, j]. A matrix that is not positive definite gives NaN where
    PyTorch raises. `upper`: L transposed."""
    n = a.shape[-1]
    rows = torch.arange(n, device=a.device)
    l = torch.zeros_like(a)
    for j in range(n):
        s = a[..., :, j] - (l * l[..., j:j + 1, :]).sum(-1)
        d = torch.sqrt(s[..., j:j + 1])
        col = torch.where(rows > j, s / d, torch.where(rows == j, d, 0.0))
        l = torch.where(rows == j, col[..., :, None], l)
    return l.transpose(-2, -1) if upper else l


def solve_triangular(a: torch.Tensor, b: torch.Tensor, *, upper: bool, left: bool = True,
                     unitriangular: bool = False) -> torch.Tensor:  # fmt: skip
    """torch.linalg.solve_triangular: X with A X = B (X A = B where not `left`), A's triangle
    only (its unit diagonal where `unitriangular`), by substitution row by row (from the last
    where `upper`); batches broadcast. A zero on the diagonal gives inf / NaN, as LAPACK's."""
    if not left:  # X A = B is A^T X^T = B^T
        return solve_triangular(a.transpose(-2, -1), b.transpose(-2, -1), upper=not upper,
                                unitriangular=unitriangular).transpose(-2, -1)  # fmt: skip
    n = a.shape[-1]
    a = a.triu() if upper else a.tril()
    batch = torch.broadcast_shapes(a.shape[:-2], b.shape[:-2])
    a, b = a.expand(*batch, n, n), b.expand(*batch, *b.shape[-2:])
    rows = torch.arange(n, device=a.device)[:, None]
    x = torch.zeros_like(b)
    for i in range(n - 1, -1, -1) if upper else range(n):
        off = torch.where(rows[:, 0] == i, 0.0, a[..., i, :]) if unitriangular else a[..., i, :]
        r = b[..., i:i + 1, :] - (off[..., :, None] * x).sum(-2, keepdim=True)
        x = torch.where(rows == i, r if unitriangular else r / a[..., i:i + 1, i:i + 1], x)
    return x


def triangular_solve(b: torch.Tensor, a: torch.Tensor, upper: bool = True, transpose: bool = False,
                     unitriangular: bool = False):  # fmt: skip
    """torch.triangular_solve: (X with op(A) X = B, a copy of A), op transposing where asked."""
    op = a.transpose(-2, -1) if transpose else a
    x = solve_triangular(op, b, upper=upper != transpose, unitriangular=unitriangular)
    return torch.return_types.triangular_solve((x, a.clone()))


def cholesky_solve(b: torch.Tensor, l: torch.Tensor, upper: bool = False) -> torch.Tensor:
    """torch.cholesky_solve: X with A X = B for A = L L^T (U^T U where `upper`): two triangular
    solves."""
    if upper:
        return solve_triangular(l, solve_triangular(l.transpose(-2, -1), b, upper=False), upper=True)
    return solve_triangular(l.transpose(-2, -1), solve_triangular(l, b, upper=False), upper=True)


def cholesky_inverse(l: torch.Tensor, upper: bool = False) -> torch.Tensor:
    """torch.cholesky_inverse: A^-1 for A = L L^T (U^T U where `upper`)."""
    eye = torch.eye(l.shape[-1], dtype=l.dtype, device=l.device)
    return cholesky_solve(eye.expand(l.shape), l, upper)


def _square(a) -> bool:
    """A batch of square matrices small enough to eliminate unrolled."""
    return (isinstance(a, torch.Tensor) and a.dim() >= 2 and a.shape[-1] == a.shape[-2]
            and 0 < a.shape[-1] <= MAX_ELIMINATION and a.is_floating_point())


#: The linear algebra `ExportRewrites` answers for batches of small matrices (`_square`): each
#: torch function or Tensor method -> its rewrite, called with the same arguments.
_LINALG = {
    torch.linalg.inv: inv, torch.inverse: inv, torch.Tensor.inverse: inv,
    torch.linalg.det: det, torch.det: det, torch.Tensor.det: det,
    torch.linalg.slogdet: slogdet, torch.slogdet: slogdet, torch.Tensor.slogdet: slogdet,
    torch.logdet: logdet, torch.Tensor.logdet: logdet,
    torch.linalg.cholesky: cholesky, torch.cholesky: cholesky, torch.Tensor.cholesky: cholesky,
    torch.linalg.solve_triangular: solve_triangular,
    torch.triangular_solve: triangular_solve, torch.Tensor.triangular_solve: triangular_solve,
    torch.cholesky_solve: cholesky_solve, torch.Tensor.cholesky_solve: cholesky_solve,
    torch.cholesky_inverse: cholesky_inverse, torch.Tensor.cholesky_inverse: cholesky_inverse,
}  # fmt: skip
#: Of those, the ones whose matrix is their second argument (the first is the right-hand side).
_MATRIX_SECOND = (torch.triangular_solve, torch.Tensor.triangular_solve, torch.cholesky_solve,
                  torch.Tensor.cholesky_solve)  # fmt: skip


class ExportRewrites(TorchFunctionMode):
    """While active, torch.cov / Tensor.cov and torch.corrcoef / Tensor.corrcoef (unweighted)
    and torch.quantile / nanquantile (and their Tensor methods), F.gaussian_nll_loss,
    F.batch_norm without running statistics,
    torch.linalg.solve and the functions of `_LINALG` (inv, det, slogdet, logdet, cholesky,
    solve_triangular, triangular_solve, cholesky_solve, cholesky_inverse; matrices of at most
    MAX_ELIMINATION rows, all operands of one floating dtype, no `out=`) run as the functions
    above."""

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
        if func is F.batch_norm and (bn := _batch_norm_without_stats(args, kwargs)) is not None:
            return batch_norm_batch_stats(**bn)
        if (func is torch.linalg.solve and len(args) == 2 and not kwargs and _square(args[0])
                and isinstance(args[1], torch.Tensor) and args[1].dtype == args[0].dtype):
            return solve(*args)
        if func in _LINALG and "out" not in kwargs and args:
            matrix = args[1] if func in _MATRIX_SECOND and len(args) > 1 else args[0]
            tensors = [a for a in (*args, *kwargs.values()) if isinstance(a, torch.Tensor)]
            if _square(matrix) and all(t.dtype == matrix.dtype for t in tensors):
                return _LINALG[func](*args, **kwargs)
        return func(*args, **kwargs)
