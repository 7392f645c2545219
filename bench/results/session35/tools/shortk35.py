"""Session 35 (issue 13): short-K contractions over a large M x N (1x1 convolutions, channel-mixing
linears) and matmuls with one large operand, as users write them:

    from shortk35 import CASES"""
import sys

import torch
from torch import nn

sys.path.insert(0, "bench")
import sweep  # noqa: E402

S = sweep.SweepCase


class MM(nn.Module):
    def forward(self, a, b):
        return a @ b


class Bcast(nn.Module):
    """A batch of rows times one weight matrix (x @ W, W a parameter)."""

    def __init__(self, k, n):
        super().__init__()
        self.w = nn.Parameter(torch.empty(k, n))

    def forward(self, x):
        return x @ self.w


class TokenMix(nn.Module):
    """MLP-Mixer's token mixing: a linear over the tokens of (b, tokens, channels)."""

    def __init__(self, t):
        super().__init__()
        self.l = nn.Linear(t, t)

    def forward(self, x):
        return self.l(x.transpose(1, 2)).transpose(1, 2)


class ConvMax(nn.Module):
    """PointNet's last layer: a 1x1 convolution, then the max over the points."""

    def __init__(self, c, o):
        super().__init__()
        self.c = nn.Conv1d(c, o, 1)

    def forward(self, x):
        return self.c(x).amax(-1)


CASES = [
    S("pn_conv1d_128to1024_32x2048", "conv", lambda: nn.Conv1d(128, 1024, 1), ((32, 128, 2048),)),
    S("pn_conv1d_64to128_32x2048", "conv", lambda: nn.Conv1d(64, 128, 1), ((32, 64, 2048),)),
    S("pn_convmax_128to1024_32x2048", "conv", lambda: ConvMax(128, 1024), ((32, 128, 2048),)),
    S("r50_1x1_64to256_32x56x56", "conv", lambda: nn.Conv2d(64, 256, 1), ((32, 64, 56, 56),)),
    S("r50_1x1_256to64_32x56x56", "conv", lambda: nn.Conv2d(256, 64, 1), ((32, 256, 56, 56),)),
    S("coord_1x1_66to64_8x64x64", "conv", lambda: nn.Conv2d(66, 64, 1), ((8, 66, 64, 64),)),
    S("wavenet_1x1_128to256_16x4000", "conv", lambda: nn.Conv1d(128, 256, 1), ((16, 128, 4000),)),
    S("shuffle_g3_1x1_240_32x28x28", "conv", lambda: nn.Conv2d(240, 240, 1, groups=3), ((32, 240, 28, 28),)),
    S("conformer_pw_256to512_8x400", "conv", lambda: nn.Conv1d(256, 512, 1), ((8, 256, 400),)),
    S("swin_lin_96to288_8x3136", "linear", lambda: nn.Linear(96, 288), ((8, 3136, 96),)),
    S("lin_128to1024_65536", "linear", lambda: nn.Linear(128, 1024), ((65536, 128),)),
    S("lmhead_2048x2048to32000", "linear", lambda: nn.Linear(2048, 32000, bias=False), ((2048, 2048),)),
    S("mixer_token_64x196x512", "linear", lambda: TokenMix(196), ((64, 196, 512),)),
    S("bcast_16x4096x128to1024", "matmul", lambda: Bcast(128, 1024), ((16, 4096, 128),)),
    S("mm_nn_4096x4096x64", "matmul", lambda: MM(), ((4096, 64), (64, 4096))),
    S("mm_nn_2048x16384x128", "matmul", lambda: MM(), ((2048, 128), (128, 16384))),
]


class MMT(nn.Module):
    """a @ b with a stored transposed ([K, M]) when `ta`, b stored [N, K] when `tb`."""

    def __init__(self, ta, tb):
        super().__init__()
        self.ta, self.tb = ta, tb

    def forward(self, a, b):
        return (a.transpose(-1, -2) if self.ta else a) @ (b.transpose(-1, -2) if self.tb else b)


#: Contractions of at most 2 K steps of 32 (schedule.SIMT_MAX_STEPS), each layout, small and large.
TWO_STEPS = [
    S("tn_1472x1201x64", "matmul", lambda: MMT(True, False), ((64, 1472), (64, 1201))),
    S("nt_1472x1201x64", "matmul", lambda: MMT(False, True), ((1472, 64), (1201, 64))),
    S("bmm_tn_32x509x983x64", "matmul", lambda: MMT(True, False), ((32, 64, 509), (32, 64, 983))),
    S("tt_269x5547x64", "matmul", lambda: MMT(True, True), ((64, 269), (5547, 64))),
    S("nn_2000x3000x40", "matmul", lambda: MMT(False, False), ((2000, 40), (40, 3000))),
    S("bmm_nn_16x512x512x64", "matmul", lambda: MMT(False, False), ((16, 512, 64), (16, 64, 512))),
    S("lin_64to1024_8192", "linear", lambda: nn.Linear(64, 1024), ((8192, 64),)),
    S("lin_48to256_16384", "linear", lambda: nn.Linear(48, 256), ((16384, 48),)),
    S("conv1x1_32to128_16x64x64", "conv", lambda: nn.Conv2d(32, 128, 1), ((16, 32, 64, 64),)),
]
