"""Session 45 (issue 13, device): Fourier transforms as DFT matmuls on (real, imag) pairs
(frontend/complex_pairs.py) against eager (cuFFT) and torch.compile in the same process, on
programs that use torch.fft: a spectrum's magnitude, a low-pass filter, spectrograms (STFT),
FFT convolution, a 2-D spectrum of images, a Fourier neural operator's layer, a complex
inverse. Variants: `now` (a matmul up to DFT_DIRECT = 512 points, split past it), `direct`
(DFT_DIRECT = 4096: one matmul up to 4096 points), `split64` (DFT_DIRECT = 64: split more):

    python3 bench/results/session45/tools/fft45.py [--cases REGEX] [--variants now,direct,split64] [JSON]"""
import re
import sys

import torch
from torch import nn

from dpl.bench.ab import patched, report, time_variants  # noqa: E402
from dpl.frontend import complex_pairs as CP  # noqa: E402

sys.path.insert(0, "bench")
import sweep  # noqa: E402

sys.path.insert(0, "bench/results/session43/tools")
from ordinary43 import FFTLowPass  # noqa: E402


class F(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *x):
        return self.f(*x)


class Spectrogram(nn.Module):
    """Power spectrogram (torchaudio.transforms.Spectrogram's computation), optionally log-mel."""

    def __init__(self, n_fft: int, hop: int, mels: int = 0):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        self.register_buffer("window", torch.hann_window(n_fft))
        self.register_buffer("fb", torch.rand(n_fft // 2 + 1, mels) if mels else torch.zeros(0))

    def forward(self, x):
        s = torch.stft(x, self.n_fft, hop_length=self.hop, window=self.window, return_complex=True).abs().pow(2)
        if self.fb.numel() == 0:
            return s
        return torch.log(torch.matmul(s.transpose(-1, -2), self.fb) + 1e-6)


class FFTConv(nn.Module):
    """A long 1-D convolution by FFT (as in Hyena / S4 kernels): irfft(rfft(x) rfft(k))."""

    def __init__(self, channels: int, klen: int):
        super().__init__()
        self.k = nn.Parameter(torch.randn(channels, klen) / klen)

    def forward(self, x):
        n = x.shape[-1] + self.k.shape[-1]
        n = 1 << (n - 1).bit_length()
        y = torch.fft.irfft(torch.fft.rfft(x, n=n) * torch.fft.rfft(self.k, n=n), n=n)
        return y[..., : x.shape[-1]] + x


class SpectralConv2d(nn.Module):
    """The Fourier neural operator's layer, as its reference code writes it."""

    def __init__(self, c: int, modes: int):
        super().__init__()
        self.modes = modes
        self.w1 = nn.Parameter(torch.rand(c, c, modes, modes, dtype=torch.cfloat) / (c * c))
        self.w2 = nn.Parameter(torch.rand(c, c, modes, modes, dtype=torch.cfloat) / (c * c))

    def forward(self, x):
        m, (h, w) = self.modes, x.shape[-2:]
        x_ft = torch.fft.rfft2(x)
        out = torch.zeros(x.shape[0], self.w1.shape[1], h, w // 2 + 1, dtype=torch.cfloat, device=x.device)
        out[:, :, :m, :m] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, :m, :m], self.w1)
        out[:, :, -m:, :m] = torch.einsum("bixy,ioxy->boxy", x_ft[:, :, -m:, :m], self.w2)
        return torch.fft.irfft2(out, s=(h, w))


S = sweep.SweepCase
CASES = [
    S("rfft_mag_64x1024", "fft", lambda: F(lambda x: torch.fft.rfft(x).abs()), ((64, 1024),)),
    S("fft_lowpass_64x16384", "fft", lambda: FFTLowPass(), ((64, 16384),)),
    S("spectrogram_8x16000_n512", "fft", lambda: Spectrogram(512, 128), ((8, 16000),)),
    S("logmel_16x16000_n400", "fft", lambda: Spectrogram(400, 160, 80), ((16, 16000),)),
    S("fftconv_16x256x4096_k4096", "fft", lambda: FFTConv(256, 4096), ((16, 256, 4096),)),
    S("fft2_mag_16x3x256x256", "fft", lambda: F(lambda x: torch.fft.fft2(x).abs()), ((16, 3, 256, 256),)),
    S("fno_8x32x64x64_m12", "fft", lambda: SpectralConv2d(32, 12), ((8, 32, 64, 64),)),
    S("ifft_complex_32x4096", "fft", lambda: F(lambda x: torch.view_as_real(torch.fft.ifft(torch.view_as_complex(x)))),
      ((32, 4096, 2),)),  # fmt: skip
]
VARIANTS = {
    "now": None,
    "direct": lambda: patched(CP, "DFT_DIRECT", 4096),
    "split64": lambda: patched(CP, "DFT_DIRECT", 64),
}

args = sys.argv[1:]
pat = args[args.index("--cases") + 1] if "--cases" in args else ""
names = args[args.index("--variants") + 1].split(",") if "--variants" in args else ["now", "direct", "split64"]
rest = [a for i, a in enumerate(args) if not a.startswith("--") and args[i - 1] not in ("--cases", "--variants")]
cases = [c for c in CASES if re.search(pat, c.name)]
rows = time_variants(cases, {k: VARIANTS[k] for k in names}, "eager", 20.0, 34)
report(rows, names, "eager", 34, rest[0] if rest else None)
report(rows, names, "compile", 34, None)
