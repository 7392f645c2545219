"""The stand-ins `ExportRewrites` gives torch.export (frontend/export_rewrites.py) compute what
PyTorch's own functions do: quantile and nanquantile over every dim and none, kept or not, each
interpolation, a float q, a 0-d and a 1-d q tensor (0 and 1 among them), rows with a NaN and a
column of NaN, and a 0-d input - exactly equal (the same sort, ranks and lerp); and
gaussian_nll_loss for each shape of var and reduction, a float var, full or not; inv, det,
solve, slogdet, logdet, cholesky, the triangular solves, cholesky_solve and cholesky_inverse
against LAPACK's, pivoting, singular, unit-diagonal, right-side and broadcast cases among them."""

from __future__ import annotations

import itertools

import pytest
import torch

from dpl.frontend.capture import capture
from dpl.frontend.convert import UnsupportedOpError
from dpl.frontend.export_rewrites import (  # noqa: E402
    ExportRewrites, cholesky, cholesky_inverse, cholesky_solve, det, gaussian_nll_loss, inv, logdet, quantile, slogdet, solve,
    solve_triangular, triangular_solve,
)  # fmt: skip


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


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 16])
def test_inv_det_solve_are_lapacks(n: int):
    g = torch.Generator().manual_seed(n)
    a = torch.randn(20, n, n, generator=g, dtype=torch.float64)
    a[0] = torch.eye(n, dtype=torch.float64).flip(0)  # a zero first pivot: a row swap is needed
    b = torch.randn(20, n, 2, generator=g, dtype=torch.float64)
    torch.testing.assert_close(inv(a), torch.linalg.inv(a), rtol=1e-8, atol=1e-8)
    torch.testing.assert_close(det(a), torch.linalg.det(a), rtol=1e-9, atol=1e-12)
    torch.testing.assert_close(solve(a, b), torch.linalg.solve(a, b), rtol=1e-8, atol=1e-8)
    torch.testing.assert_close(solve(a, b[..., 0]), torch.linalg.solve(a, b[..., 0]), rtol=1e-8, atol=1e-8)


def test_det_of_singular_and_solve_broadcasts():
    for m in ([[1.0, 2.0], [2.0, 4.0]], [[0.0] * 3] * 3):
        assert det(torch.tensor(m)).item() == 0.0
    g = torch.Generator().manual_seed(2)
    a, b = torch.randn(4, 1, 3, 3, generator=g, dtype=torch.float64), torch.randn(5, 3, 2, generator=g, dtype=torch.float64)
    torch.testing.assert_close(solve(a, b), torch.linalg.solve(a, b))
    torch.testing.assert_close(solve(a, b[0, :, 0]), torch.linalg.solve(a, b[0, :, 0]))


def test_linalg_exports_and_large_matrices_go_to_pytorch():
    class Small(torch.nn.Module):
        def forward(self, a):
            return torch.linalg.inv(a), a.det(), torch.linalg.solve(a, a[..., 0])

    a = torch.randn(5, 3, 3) + 3 * torch.eye(3)
    with ExportRewrites():
        ep = torch.export.export(Small(), (a,))
    assert "linalg" not in str(ep.graph)
    for got, ref in zip(ep.module()(a), Small()(a)):
        torch.testing.assert_close(got, ref, rtol=1e-4, atol=1e-5)
    with ExportRewrites():
        big = torch.export.export(Small(), (torch.randn(2, 17, 17) + 5 * torch.eye(17),))
    assert "linalg_inv" in str(big.graph)


def _spd_and_triangular(n: int, seed: int):
    """A batch of symmetric positive definite matrices, one of well-conditioned triangles (a
    dominant diagonal of either sign), right-hand sides."""
    g = torch.Generator().manual_seed(seed)
    m = torch.randn(6, n, n, generator=g, dtype=torch.float64)
    spd = m @ m.transpose(-1, -2) + n * torch.eye(n, dtype=torch.float64)
    sign = torch.where(torch.rand(6, n, generator=g) < 0.5, -1.0, 1.0).double()
    tri = m / n + torch.diag_embed(sign * (2 + torch.rand(6, n, generator=g, dtype=torch.float64)))
    return spd, tri, torch.randn(6, n, 3, generator=g, dtype=torch.float64)


@pytest.mark.parametrize("n", [1, 2, 3, 5, 16])
def test_cholesky_and_triangular_solves_are_lapacks(n: int):
    spd, tri, b = _spd_and_triangular(n, n)
    close = lambda x, y: torch.testing.assert_close(x, y, rtol=1e-9, atol=1e-11)  # noqa: E731
    for upper in (False, True):
        close(cholesky(spd, upper), torch.linalg.cholesky(spd, upper=upper))
        for unit in (False, True):
            close(solve_triangular(tri, b, upper=upper, unitriangular=unit),
                  torch.linalg.solve_triangular(tri, b, upper=upper, unitriangular=unit))  # fmt: skip
            close(solve_triangular(tri, b.mT, upper=upper, left=False, unitriangular=unit),
                  torch.linalg.solve_triangular(tri, b.mT, upper=upper, left=False, unitriangular=unit))  # fmt: skip
            for transpose in (False, True):
                got, ref = triangular_solve(b, tri, upper, transpose, unit), torch.triangular_solve(b, tri, upper, transpose, unit)
                close(got.solution, ref.solution)
                close(got.cloned_coefficient, ref.cloned_coefficient)
        factor = torch.linalg.cholesky(spd, upper=upper)
        close(cholesky_solve(b, factor, upper), torch.cholesky_solve(b, factor, upper))
        close(cholesky_inverse(factor, upper), torch.cholesky_inverse(factor, upper))
    # one triangle is read: the other may hold anything, even inf
    close(solve_triangular(tri.tril() + torch.full_like(tri, torch.inf).triu(1), b, upper=False),
          torch.linalg.solve_triangular(tri.tril(), b, upper=False))  # fmt: skip
    # batches broadcast
    close(solve_triangular(tri[:1], b[:, None], upper=True), torch.linalg.solve_triangular(tri[:1], b[:, None], upper=True))


@pytest.mark.parametrize("n", [1, 2, 4, 9])
def test_slogdet_and_logdet_are_lapacks(n: int):
    g = torch.Generator().manual_seed(n)
    a = torch.randn(20, n, n, generator=g, dtype=torch.float64)
    a[0] = torch.eye(n, dtype=torch.float64).flip(0)  # a row swap
    a[1] = 0.0  # singular: sign 0, -inf
    got, ref = slogdet(a), torch.linalg.slogdet(a)
    torch.testing.assert_close(got.sign, ref.sign)
    torch.testing.assert_close(got.logabsdet, ref.logabsdet, rtol=1e-10, atol=1e-12)
    torch.testing.assert_close(logdet(a), torch.logdet(a), rtol=1e-10, atol=1e-12, equal_nan=True)
    torch.testing.assert_close(det(a), torch.linalg.det(a), rtol=1e-9, atol=1e-12)


def test_cholesky_family_exports_without_linalg_ops():
    class Gaussian(torch.nn.Module):
        """A multivariate normal's log-density by its Cholesky factor, and the factor's uses."""

        def forward(self, cov, x):
            l = torch.linalg.cholesky(cov)
            z = torch.linalg.solve_triangular(l, x[..., None], upper=False)[..., 0]
            logp = -0.5 * (z * z).sum(-1) - l.diagonal(dim1=-2, dim2=-1).log().sum(-1)
            return logp, torch.cholesky_solve(x[..., None], l), torch.cholesky_inverse(l), torch.linalg.slogdet(cov).logabsdet, cov.logdet()

    spd, _, b = _spd_and_triangular(4, 0)
    args = (spd.float(), b[..., 0].float())
    with ExportRewrites():
        ep = torch.export.export(Gaussian(), args)
    assert "linalg" not in str(ep.graph) and "cholesky" not in str(ep.graph)
    for got, ref in zip(ep.module()(*args), Gaussian()(*args)):
        torch.testing.assert_close(got, ref, rtol=1e-4, atol=1e-5)


def test_a_check_kept_as_an_effect_is_a_one_line_error():
    class Big(torch.nn.Module):
        def forward(self, a):
            return torch.linalg.inv(a)

    with pytest.raises(UnsupportedOpError, match=r"^unsupported op aten.linalg_inv.default: it checks its data at run "
                                                 r"time \(aten._linalg_check_errors.default\).*test_export_rewrites.py"):
        capture(Big(), torch.randn(2, 17, 17))


@pytest.mark.parametrize("shape", [(5, 3), (4, 3, 7), (2, 3, 5, 6), (3, 3, 2, 5, 3)])
def test_batch_norm_without_running_stats_is_pytorchs_and_compiles(shape):
    """A BatchNorm with track_running_stats=False normalises by batch statistics in eval too;
    it was refused as 'batch_norm in training mode (call .eval() first)'. Its stand-in equals
    PyTorch's, captures, and keeps its meaning on the torch, tensor and loop executors. A
    BatchNorm with running statistics in training mode (it updates them) stays refused."""
    import numpy as np

    from dpl.interpreters import exec_loop, exec_tensor, exec_torch
    from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

    g = torch.Generator().manual_seed(2)
    bn = {2: torch.nn.BatchNorm1d, 3: torch.nn.BatchNorm1d, 4: torch.nn.BatchNorm2d, 5: torch.nn.BatchNorm3d}[len(shape)]
    m = bn(3, eps=1e-3, track_running_stats=False).double().eval()
    with torch.no_grad():
        m.weight.copy_(torch.randn(3, generator=g))
        m.bias.copy_(torch.randn(3, generator=g))
    x = 3 * torch.randn(shape, generator=g, dtype=torch.float64) + 1
    with ExportRewrites():
        torch.testing.assert_close(m(x), torch.nn.functional.batch_norm(x, None, None, m.weight, m.bias, True, 0.1, 1e-3))
    ref = m(x).detach().numpy()
    prog = capture(m, x, dtype=torch.float64)
    arrays = [x.numpy()] + [a.detach().numpy() for a in prog.args[prog.num_inputs:]]
    loop_passes = IR_PIPELINES["loop"][len(IR_PIPELINES["tensor"]) + 1:]
    for passes, run in (("", exec_torch.run), (IR_PIPELINES["tensor"], exec_tensor.run), (loop_passes, exec_loop.run)):
        run_pipeline(prog.module, passes)
        np.testing.assert_allclose(run(prog.module, arrays)[0], ref, rtol=1e-12, atol=1e-12)
    with pytest.raises(UnsupportedOpError, match="batch_norm in training mode"):
        capture(_TrainingBatchNorm(), x)


class _TrainingBatchNorm(torch.nn.Module):
    def forward(self, x):
        return torch.nn.functional.batch_norm(x, torch.zeros(3, dtype=x.dtype), torch.ones(3, dtype=x.dtype), training=True)
