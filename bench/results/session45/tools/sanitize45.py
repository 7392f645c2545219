"""Session 45 (GPU): Fourier transforms and small-matrix linear algebra under compute-sanitizer, each run once with a poisoned
output against float64 (scripts/sanitize_schedules.run): a direct rfft of an odd length, split ones
(1030 = 10 x 103, 600 = 24 x 25), the inverse of a split one-sided spectrum (the whole spectrum
rebuilt), an STFT, an FNO layer (zeroed spectrum, slice assignment, complex einsum); a Cholesky factor,
a triangular solve, cholesky_solve and slogdet."""
import sys

import torch

sys.path.insert(0, "scripts")
from sanitize_schedules import run  # noqa: E402

sys.path.insert(0, "bench/results/session45/tools")
g = torch.Generator().manual_seed(45)
r = lambda *s: torch.randn(*s, generator=g)  # noqa: E731
vr = torch.view_as_real


W = torch.randn(4, 4, 3, 3, 2, generator=g)


def fno(x):
    w = torch.view_as_complex(W.to(x.device, x.dtype))
    x_ft = torch.fft.rfft2(x)
    out = torch.zeros(x.shape[0], 4, x.shape[-2], x.shape[-1] // 2 + 1, dtype=x_ft.dtype, device=x.device)
    out[:, :, :3, :3] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, :3, :3], w)
    return torch.fft.irfft2(out, s=x.shape[-2:])


def _chol(spd, b):
    l = torch.linalg.cholesky(spd)
    return torch.cat([l.flatten(1), torch.linalg.solve_triangular(l, b, upper=False).flatten(1), torch.cholesky_solve(b, l).flatten(1),
                      torch.linalg.slogdet(spd).logabsdet[:, None]], 1)  # fmt: skip


cases = {
    "rfft 3 x 37": (lambda x: vr(torch.fft.rfft(x)), [r(3, 37)]),
    "rfft 2 x 1030 (split)": (lambda x: vr(torch.fft.rfft(x, norm="ortho")), [r(2, 1030)]),
    "irfft 2 x 2048 (split, whole spectrum)": (lambda x: torch.fft.irfft(torch.fft.rfft(x) * 0.5), [r(2, 2048)]),
    "fft complex 3 x 600 (split)": (lambda x: vr(torch.fft.fft(torch.view_as_complex(x))), [r(3, 600, 2)]),
    "stft 2 x 999": (lambda x: torch.stft(x, 64, hop_length=16, window=torch.hann_window(64, device=x.device), return_complex=True).abs(),
                     [r(2, 999)]),  # fmt: skip
    "fno 2 x 4 x 12 x 10": (fno, [r(2, 4, 12, 10)]),
    "cholesky family 5 x 6 x 6": (lambda m, b: _chol(m @ m.mT + 6 * torch.eye(6, device=m.device), b), [r(5, 6, 6), r(5, 6, 2)]),
}
if __name__ == "__main__":
    run(cases)
