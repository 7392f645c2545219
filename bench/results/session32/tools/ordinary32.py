"""Session 32: ordinary programs outside the sweep's op classes (convolutions, pools, group norm,
an MLP, attention written by hand, a transformer encoder layer, scans), as sweep cases.

    from ordinary32 import CASES"""
import math
import sys

import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, "bench")
import sweep  # noqa: E402

S = sweep.SweepCase


class ConvBnRelu(nn.Sequential):
    def __init__(self, cin, cout, k, stride=1, groups=1):
        super().__init__(nn.Conv2d(cin, cout, k, stride, k // 2, groups=groups, bias=False),
                         nn.BatchNorm2d(cout), nn.ReLU())


class Attn(nn.Module):
    """softmax(q @ k^T / sqrt(d)) @ v, written by hand."""

    def forward(self, q, k, v):
        return torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]), dim=-1) @ v


class Sdpa(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


class Mlp(nn.Sequential):
    def __init__(self, d, h):
        super().__init__(nn.Linear(d, h), nn.GELU(), nn.Linear(h, d))


class MatmulW(nn.Module):
    """x @ w for a batched x and one w (torch.matmul broadcasting w)."""

    def __init__(self, k, n):
        super().__init__()
        self.w = nn.Parameter(torch.empty(k, n))

    def forward(self, x):
        return torch.matmul(x, self.w)


class Cumsum(nn.Module):
    def forward(self, x):
        return torch.cumsum(x, dim=-1)


class Up(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2, mode="nearest")


class PreNormLinear(nn.Module):
    def __init__(self, d, n):
        super().__init__()
        self.ln, self.lin = nn.LayerNorm(d), nn.Linear(d, n)

    def forward(self, x):
        return self.lin(self.ln(x))


CASES = [
    S("conv3x3_8x64x56x56", "conv", lambda: nn.Conv2d(64, 64, 3, padding=1), ((8, 64, 56, 56),)),
    S("convbnrelu3x3_16x128x28x28", "conv", lambda: ConvBnRelu(128, 128, 3), ((16, 128, 28, 28),)),
    S("conv1x1_8x256x56x56to64", "conv", lambda: nn.Conv2d(256, 64, 1), ((8, 256, 56, 56),)),
    S("conv3x3s2_8x64x56x56to128", "conv", lambda: nn.Conv2d(64, 128, 3, stride=2, padding=1), ((8, 64, 56, 56),)),
    S("dwconv3x3_8x128x56x56", "conv", lambda: ConvBnRelu(128, 128, 3, groups=128), ((8, 128, 56, 56),)),
    S("conv1d5_16x256x1000", "conv", lambda: nn.Conv1d(256, 256, 5, padding=2), ((16, 256, 1000),)),
    S("stem7x7s2_8x3x224x224", "conv", lambda: nn.Conv2d(3, 64, 7, 2, 3), ((8, 3, 224, 224),)),
    S("maxpool3s2_8x64x112x112", "pool", lambda: nn.MaxPool2d(3, 2, 1), ((8, 64, 112, 112),)),
    S("avgpool_32x512x7x7", "pool", lambda: nn.AdaptiveAvgPool2d(1), ((32, 512, 7, 7),)),
    S("groupnorm32_8x256x32x32", "norm", lambda: nn.GroupNorm(32, 256), ((8, 256, 32, 32),)),
    S("mlp_512x1024x4096", "mlp", lambda: Mlp(1024, 4096), ((512, 1024),)),
    S("prenorm_linear_2048x768to2304", "mlp", lambda: PreNormLinear(768, 2304), ((4, 512, 768),)),
    S("attn_hand_16x197x64", "attention", lambda: Attn(), ((16, 197, 64),) * 3),
    S("sdpa_4x8x333x64", "attention", lambda: Sdpa(), ((4, 8, 333, 64),) * 3),
    S("encoder_8x128x512", "block", lambda: nn.TransformerEncoderLayer(512, 8, 2048, dropout=0.0, batch_first=True), ((8, 128, 512),)),
    S("cumsum_64x4096", "scan", lambda: Cumsum(), ((64, 4096),)),
    S("upsample2_8x64x56x56", "resize", lambda: Up(), ((8, 64, 56, 56),)),
] + [  # contractions with an M or N side of several loops (collapse-matmul-axes)
    S("conv3x3_16x256x14x14", "conv", lambda: nn.Conv2d(256, 256, 3, padding=1), ((16, 256, 14, 14),)),
    S("conv1x1_32x512x7x7to2048", "conv", lambda: nn.Conv2d(512, 2048, 1), ((32, 512, 7, 7),)),
    S("conv3x3_3x37x33x45to61", "conv", lambda: nn.Conv2d(37, 61, 3, padding=1), ((3, 37, 33, 45),)),
    S("conv3x3_2x320x64x64", "conv", lambda: nn.Conv2d(320, 320, 3, padding=1), ((2, 320, 64, 64),)),
    S("linear3d_8x197x768to2304", "linear3d", lambda: nn.Linear(768, 2304), ((8, 197, 768),)),
    S("linear3d_16x77x512to2048", "linear3d", lambda: nn.Linear(512, 2048), ((16, 77, 512),)),
    S("linear3d_2x4096x320to1280", "linear3d", lambda: nn.Linear(320, 1280), ((2, 4096, 320),)),
    S("linear3d_3x333x257to511", "linear3d", lambda: nn.Linear(257, 511), ((3, 333, 257),)),
    S("matmul_w_32x128x64to200", "linear3d", lambda: MatmulW(64, 200), ((32, 128, 64),)),
    S("mlp3d_8x256x512", "mlp", lambda: Mlp(512, 2048), ((8, 256, 512),)),
] + [  # padded windows (pad)
    S("maxpool3s2_32x64x56x56", "pool", lambda: nn.MaxPool2d(3, 2, 1), ((32, 64, 56, 56),)),
    S("avgpool3s1p1_8x128x33x33", "pool", lambda: nn.AvgPool2d(3, 1, 1), ((8, 128, 33, 33),)),
    S("conv5x5p2_4x32x127x127to48", "conv", lambda: nn.Conv2d(32, 48, 5, padding=2), ((4, 32, 127, 127),)),
] + [  # convolutions the session did not aim at: grouped, dilated, transposed
    S("gconv3x3g32_8x256x28x28", "conv-other", lambda: nn.Conv2d(256, 256, 3, padding=1, groups=32), ((8, 256, 28, 28),)),
    S("dilconv3x3d2_4x64x64x64", "conv-other", lambda: nn.Conv2d(64, 64, 3, padding=2, dilation=2), ((4, 64, 64, 64),)),
    S("convT4x4s2_4x128x32x32to64", "conv-other", lambda: nn.ConvTranspose2d(128, 64, 4, 2, 1), ((4, 128, 32, 32),)),
]
