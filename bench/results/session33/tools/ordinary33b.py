"""Session 33: a second batch of ordinary programs (losses, MobileNet and U-Net pieces, MoE
routing, multi-head attention modules, einsum, sequence pooling, audio convolutions, argsort,
resizing), as sweep cases.

    from ordinary33b import CASES"""
import sys

import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, "bench")
import sweep  # noqa: E402

S = sweep.SweepCase


class Fn(nn.Module):
    def __init__(self, f):
        super().__init__()
        self.f = f

    def forward(self, *xs):
        return self.f(*xs)


class Losses(nn.Module):
    """MSE + smooth L1 + BCE with logits + KL divergence of log-softmaxes."""

    def forward(self, a, b):
        t = torch.sigmoid(b)
        return (F.mse_loss(a, b) + F.smooth_l1_loss(a, b) + F.binary_cross_entropy_with_logits(a, t)
                + F.kl_div(F.log_softmax(a, -1), F.log_softmax(b, -1), reduction="batchmean", log_target=True))


class Focal(nn.Module):
    def forward(self, logits, t):
        p = torch.sigmoid(logits)
        target = (t > 0).float()
        ce = F.binary_cross_entropy_with_logits(logits, target, reduction="none")
        pt = p * target + (1 - p) * (1 - target)
        return (ce * (1 - pt) ** 2).mean()


class MBConv(nn.Module):
    """MobileNetV3 block: 1x1 expand, BN, hardswish, depthwise 3x3, BN, SE, 1x1 project, residual."""

    def __init__(self, c, e):
        super().__init__()
        self.a = nn.Sequential(nn.Conv2d(c, e, 1, bias=False), nn.BatchNorm2d(e), nn.Hardswish())
        self.b = nn.Sequential(nn.Conv2d(e, e, 3, padding=1, groups=e, bias=False), nn.BatchNorm2d(e), nn.Hardswish())
        self.s1, self.s2 = nn.Conv2d(e, e // 4, 1), nn.Conv2d(e // 4, e, 1)
        self.c = nn.Sequential(nn.Conv2d(e, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        y = self.b(self.a(x))
        y = y * F.hardsigmoid(self.s2(F.relu(self.s1(F.adaptive_avg_pool2d(y, 1)))))
        return x + self.c(y)


class UpBlock(nn.Module):
    """U-Net decoder step: bilinear upsample, concat the skip, conv 3x3, GroupNorm, SiLU."""

    def __init__(self, c):
        super().__init__()
        self.conv, self.gn = nn.Conv2d(2 * c, c, 3, padding=1), nn.GroupNorm(8, c)

    def forward(self, x, skip):
        x = F.interpolate(x, scale_factor=2, mode="bilinear", align_corners=False)
        return F.silu(self.gn(self.conv(torch.cat([x, skip], 1))))


class MoERoute(nn.Module):
    """Router: softmax over experts, top-2, renormalized weights, scattered into a dense map."""

    def __init__(self, d, e):
        super().__init__()
        self.gate = nn.Linear(d, e, bias=False)

    def forward(self, x):
        p = torch.softmax(self.gate(x), -1)
        w, i = torch.topk(p, 2, dim=-1)
        w = w / w.sum(-1, keepdim=True)
        return torch.zeros_like(p).scatter(-1, i, w)


class MHA(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.m = nn.MultiheadAttention(d, h, batch_first=True)

    def forward(self, x):
        return self.m(x, x, x, need_weights=False)[0]


class MaskedMean(nn.Module):
    """Mean over the tokens a mask keeps (sentence embedding)."""

    def forward(self, h, m):
        keep = (m > 0).float().unsqueeze(-1)
        return (h * keep).sum(1) / keep.sum(1).clamp(min=1e-9)


class CausalConv1d(nn.Module):
    """WaveNet-style dilated causal convolutions with a gated activation."""

    def __init__(self, c):
        super().__init__()
        self.f, self.g = nn.Conv1d(c, c, 2, dilation=4), nn.Conv1d(c, c, 2, dilation=4)

    def forward(self, x):
        x = F.pad(x, (4, 0))
        return torch.tanh(self.f(x)) * torch.sigmoid(self.g(x))


class TDecoder(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.l = nn.TransformerDecoderLayer(d, h, 4 * d, dropout=0.0, batch_first=True)

    def forward(self, x, mem):
        s = x.shape[1]
        mask = torch.triu(torch.full((s, s), float("-inf"), device=x.device), 1)
        return self.l(x, mem, tgt_mask=mask)


CASES = [
    S("losses_4096x1000", "loss", lambda: Losses(), ((4096, 1000),) * 2),
    S("focal_64x80x100", "loss", lambda: Focal(), ((64, 80, 100),) * 2),
    S("mbconv_8x40x56x56", "vision", lambda: MBConv(40, 240), ((8, 40, 56, 56),)),
    S("upblock_4x128x32x32", "vision", lambda: UpBlock(128), ((4, 128, 32, 32), (4, 128, 64, 64))),
    S("moe_route_8192x1024to8", "nlp", lambda: MoERoute(1024, 8), ((8192, 1024),)),
    S("mha_8x256x512", "attention", lambda: MHA(512, 8), ((8, 256, 512),)),
    S("masked_mean_32x512x768", "nlp", lambda: MaskedMean(), ((32, 512, 768), (32, 512))),
    S("causal_conv1d_8x128x4000", "audio", lambda: CausalConv1d(128), ((8, 128, 4000),)),
    S("tdecoder_4x128x512", "block", lambda: TDecoder(512, 8), ((4, 128, 512), (4, 200, 512))),
    S("einsum_qk_8x12x256x64", "contraction", lambda: Fn(lambda q, k: torch.einsum("bhqd,bhkd->bhqk", q, k)), ((8, 12, 256, 64),) * 2),
    S("baddbmm_16x300x200x100", "contraction", lambda: Fn(lambda c, a, b: torch.baddbmm(c, a, b, beta=0.5, alpha=2.0)), ((16, 300, 100), (16, 300, 200), (16, 200, 100))),
    S("addmm_4096x1024to1000", "contraction", lambda: Fn(lambda c, a, b: torch.addmm(c, a, b)), ((1000,), (4096, 1024), (1024, 1000))),
    S("argsort_512x256", "reduce", lambda: Fn(lambda x: torch.argsort(x, -1).float()), ((512, 256),)),
    S("cumsum_16x100000", "scan", lambda: Fn(lambda x: torch.cumsum(x, -1)), ((16, 100000),)),
    S("vnorm_2048x2048", "reduce", lambda: Fn(lambda x: torch.linalg.vector_norm(x, dim=-1)), ((2048, 2048),)),
    S("roll_flip_16x64x128x128", "pointwise", lambda: Fn(lambda x: torch.roll(x, 3, -1) + torch.flip(x, [-2])), ((16, 64, 128, 128),)),
    S("adapool7_32x512x14x14", "pool", lambda: Fn(lambda x: F.adaptive_avg_pool2d(x, 7)), ((32, 512, 14, 14),)),
    S("unfold_8x64x32x32", "vision", lambda: Fn(lambda x: F.unfold(x, 3, padding=1)), ((8, 64, 32, 32),)),
    S("onehot_mm_4096x512", "contraction", lambda: Fn(lambda x, w: F.one_hot(x.argmax(-1), 512).float() @ w), ((4096, 512), (512, 256))),
    S("where_clamp_64x1024x512", "pointwise", lambda: Fn(lambda x, y: torch.where(x > y, x.clamp(-1, 1), y * 0.5).abs().sqrt()), ((64, 1024, 512),) * 2),
    S("layerscale_res_8x3136x96", "pointwise", lambda: Fn(lambda x, y, g: x + g * y), ((8, 3136, 96), (8, 3136, 96), (96,))),
    S("std_mean_256x4096", "reduce", lambda: Fn(lambda x: torch.std(x, -1) + torch.mean(x, -1)), ((256, 4096),)),
]
