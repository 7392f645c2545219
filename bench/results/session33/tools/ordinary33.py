"""Session 33: ordinary programs neither the sweep nor session 32's set (ordinary32) holds, as a
new user writes them: vision blocks (residual, bottleneck, squeeze-excite, ConvNeXt, diffusion
GroupNorm + SiLU), sequence-model pieces (SwiGLU, rotary, causal attention, cross entropy,
embeddings), and everyday tensor code (cosine similarity, cdist, normalize, logsumexp, argmax,
pixel shuffle, bilinear resize, a classifier head), as sweep cases.

    from ordinary33 import CASES"""
import math
import sys

import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, "bench")
import sweep  # noqa: E402

S = sweep.SweepCase


class Basic(nn.Module):
    """ResNet basic block (eval BatchNorm)."""

    def __init__(self, c):
        super().__init__()
        self.c1, self.b1 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)
        self.c2, self.b2 = nn.Conv2d(c, c, 3, padding=1, bias=False), nn.BatchNorm2d(c)

    def forward(self, x):
        return F.relu(self.b2(self.c2(F.relu(self.b1(self.c1(x))))) + x)


class SE(nn.Module):
    """Squeeze-and-excitation: x * sigmoid(fc2(relu(fc1(mean_hw(x)))))."""

    def __init__(self, c, r=16):
        super().__init__()
        self.f1, self.f2 = nn.Linear(c, c // r), nn.Linear(c // r, c)

    def forward(self, x):
        s = x.mean((2, 3))
        return x * torch.sigmoid(self.f2(F.relu(self.f1(s))))[:, :, None, None]


class ConvNeXt(nn.Module):
    """ConvNeXt block: depthwise 7x7, LayerNorm over channels (NHWC), MLP, residual."""

    def __init__(self, c):
        super().__init__()
        self.dw = nn.Conv2d(c, c, 7, padding=3, groups=c)
        self.ln = nn.LayerNorm(c)
        self.f1, self.f2 = nn.Linear(c, 4 * c), nn.Linear(4 * c, c)

    def forward(self, x):
        y = self.dw(x).permute(0, 2, 3, 1)
        y = self.f2(F.gelu(self.f1(self.ln(y))))
        return x + y.permute(0, 3, 1, 2)


class GnSilu(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gn = nn.GroupNorm(32, c)

    def forward(self, x):
        return F.silu(self.gn(x))


class SwiGLU(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.g, self.u, self.d = nn.Linear(d, h, bias=False), nn.Linear(d, h, bias=False), nn.Linear(h, d, bias=False)

    def forward(self, x):
        return self.d(F.silu(self.g(x)) * self.u(x))


class Rotary(nn.Module):
    """x * cos + rotate_half(x) * sin over (b, h, s, d)."""

    def __init__(self, s, d):
        super().__init__()
        inv = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
        f = torch.outer(torch.arange(s).float(), inv)
        emb = torch.cat([f, f], -1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())

    def forward(self, x):
        h = x.shape[-1] // 2
        rot = torch.cat([-x[..., h:], x[..., :h]], -1)
        return x * self.cos + rot * self.sin


class Causal(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=True)


class CausalHand(nn.Module):
    """Masked softmax attention written by hand (triu mask, masked_fill)."""

    def forward(self, q, k, v):
        s = q.shape[-2]
        w = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        mask = torch.triu(torch.ones(s, s, dtype=torch.bool, device=q.device), 1)
        return torch.softmax(w.masked_fill(mask, float("-inf")), -1) @ v


class CrossEntropy(nn.Module):
    def __init__(self, n, c):
        super().__init__()
        self.register_buffer("target", torch.randint(0, c, (n,)))

    def forward(self, logits):
        return F.cross_entropy(logits, self.target)


class EmbedLn(nn.Module):
    def __init__(self, vocab, d, b, s):
        super().__init__()
        self.emb, self.ln = nn.Embedding(vocab, d), nn.LayerNorm(d)
        self.register_buffer("ids", torch.randint(0, vocab, (b, s)))

    def forward(self, pos):
        return self.ln(self.emb(self.ids) + pos)


class Cos(nn.Module):
    def forward(self, a, b):
        return F.cosine_similarity(a, b, dim=-1)


class Cdist(nn.Module):
    def forward(self, a, b):
        return torch.cdist(a, b)


class Normalize(nn.Module):
    def forward(self, x):
        return F.normalize(x, dim=-1)


class LogSumExp(nn.Module):
    def forward(self, x):
        return torch.logsumexp(x, dim=-1)


class Argmax(nn.Module):
    def forward(self, x):
        return torch.argmax(x, dim=-1).float()


class PixelShuffle(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv, self.ps = nn.Conv2d(c, 4 * c, 3, padding=1), nn.PixelShuffle(2)

    def forward(self, x):
        return self.ps(self.conv(x))


class Bilinear(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)


class Head(nn.Module):
    """Global average pool, flatten, LayerNorm, linear classifier."""

    def __init__(self, c, n):
        super().__init__()
        self.ln, self.fc = nn.LayerNorm(c), nn.Linear(c, n)

    def forward(self, x):
        return self.fc(self.ln(torch.flatten(F.adaptive_avg_pool2d(x, 1), 1)))


class GeluTanh(nn.Module):
    def forward(self, x):
        return F.gelu(x, approximate="tanh") * 1.702 + torch.clamp(x, -1, 1)


class SoftmaxDim1(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=1)


class Var(nn.Module):
    def forward(self, x):
        return x.var(dim=(2, 3), keepdim=True)


class InstanceNorm(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n = nn.InstanceNorm2d(c, affine=True)

    def forward(self, x):
        return F.leaky_relu(self.n(x), 0.2)


class Bmm(nn.Module):
    def forward(self, a, b):
        return torch.bmm(a, b.transpose(1, 2))


class BatchNorm1dMlp(nn.Sequential):
    def __init__(self, d, h):
        super().__init__(nn.Linear(d, h), nn.BatchNorm1d(h), nn.ReLU(), nn.Linear(h, d))


class Bottleneck(nn.Module):
    def __init__(self, c, m):
        super().__init__()
        self.a = nn.Sequential(nn.Conv2d(c, m, 1, bias=False), nn.BatchNorm2d(m), nn.ReLU())
        self.b = nn.Sequential(nn.Conv2d(m, m, 3, padding=1, bias=False), nn.BatchNorm2d(m), nn.ReLU())
        self.c = nn.Sequential(nn.Conv2d(m, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return F.relu(self.c(self.b(self.a(x))) + x)


class TopK(nn.Module):
    def forward(self, x):
        return torch.topk(x, 8, dim=-1).values


class ViTPatch(nn.Module):
    """Patch embedding: 16x16 stride-16 conv, flatten, transpose, + position."""

    def __init__(self, c, d):
        super().__init__()
        self.p = nn.Conv2d(c, d, 16, 16)

    def forward(self, x, pos):
        return self.p(x).flatten(2).transpose(1, 2) + pos


CASES = [
    S("resnet_basic_8x64x56x56", "vision", lambda: Basic(64), ((8, 64, 56, 56),)),
    S("bottleneck_8x256x28x28", "vision", lambda: Bottleneck(256, 64), ((8, 256, 28, 28),)),
    S("se_16x256x28x28", "vision", lambda: SE(256), ((16, 256, 28, 28),)),
    S("convnext_8x96x56x56", "vision", lambda: ConvNeXt(96), ((8, 96, 56, 56),)),
    S("gnsilu_4x320x64x64", "norm", lambda: GnSilu(320), ((4, 320, 64, 64),)),
    S("instnorm_8x64x128x128", "norm", lambda: InstanceNorm(64), ((8, 64, 128, 128),)),
    S("var_hw_32x256x28x28", "reduce", lambda: Var(), ((32, 256, 28, 28),)),
    S("softmax_dim1_8x19x128x128", "reduce", lambda: SoftmaxDim1(), ((8, 19, 128, 128),)),
    S("pixelshuffle_4x64x64x64", "vision", lambda: PixelShuffle(64), ((4, 64, 64, 64),)),
    S("bilinear2_8x64x64x64", "resize", lambda: Bilinear(), ((8, 64, 64, 64),)),
    S("head_64x512x7x7to1000", "vision", lambda: Head(512, 1000), ((64, 512, 7, 7),)),
    S("vitpatch_8x3x224x224", "vision", lambda: ViTPatch(3, 768), ((8, 3, 224, 224), (8, 196, 768))),
    S("swiglu_4x512x1024", "mlp", lambda: SwiGLU(1024, 2816), ((4, 512, 1024),)),
    S("bn1d_mlp_1024x512", "mlp", lambda: BatchNorm1dMlp(512, 2048), ((1024, 512),)),
    S("rotary_4x16x512x64", "pointwise", lambda: Rotary(512, 64), ((4, 16, 512, 64),)),
    S("causal_sdpa_4x12x512x64", "attention", lambda: Causal(), ((4, 12, 512, 64),) * 3),
    S("causal_hand_8x8x256x64", "attention", lambda: CausalHand(), ((8, 8, 256, 64),) * 3),
    S("xent_4096x32000", "loss", lambda: CrossEntropy(4096, 32000), ((4096, 32000),)),
    S("xent_1000x1000", "loss", lambda: CrossEntropy(1000, 1000), ((1000, 1000),)),
    S("embed_ln_8x512x768", "nlp", lambda: EmbedLn(30522, 768, 8, 512), ((8, 512, 768),)),
    S("cosine_4096x768", "pointwise", lambda: Cos(), ((4096, 768),) * 2),
    S("cdist_4x1000x1200x64", "contraction", lambda: Cdist(), ((4, 1000, 64), (4, 1200, 64))),
    S("normalize_16384x512", "reduce", lambda: Normalize(), ((16384, 512),)),
    S("logsumexp_2048x10000", "reduce", lambda: LogSumExp(), ((2048, 10000),)),
    S("argmax_4096x1000", "reduce", lambda: Argmax(), ((4096, 1000),)),
    S("gelu_tanh_clamp_32x1024x1024", "pointwise", lambda: GeluTanh(), ((32, 1024, 1024),)),
    S("bmm_nt_64x384x384x64", "contraction", lambda: Bmm(), ((64, 384, 64), (64, 384, 64))),
    S("topk8_4096x1024", "reduce", lambda: TopK(), ((4096, 1024),)),
]
