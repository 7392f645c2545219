"""Session 40: a sixth batch of ordinary programs none of sessions 32-38's sets hold, as a new
user writes them: RetNet's retention, CLIP's loss, a top-2 MoE, GraphSAGE's mean aggregation
(index_add), an Adam step, per-channel fake quantization, weight-only int8 dequant before a
linear, a 3-D convolution and pooling, local response norm, an embedding bag, colour
conversion, a separable Gaussian blur, Sobel edges, GIoU, a median filter, running max,
logcumsumexp, squared-ReLU and GEGLU MLPs, trilinear upsampling, T5's relative buckets,
InstanceNorm1d, weight-standardised convolution, ConvNeXt-V2's GRN, Swin's patch merging,
soft-capped attention, cross entropy with ignore_index and label smoothing, bucketize and
quantile, as sweep cases.

    from ordinary40 import CASES"""
import math
import sys

import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, "bench")
import sweep  # noqa: E402

S = sweep.SweepCase


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


class Retention(nn.Module):
    """RetNet's parallel retention: (q k^T * decay mask) v, a group norm per head."""

    def __init__(self, heads, n):
        super().__init__()
        gamma = 1 - 2.0 ** (-5 - torch.arange(heads, dtype=torch.float32))
        i = torch.arange(n)
        d = (i[:, None] - i[None, :]).float()
        mask = torch.where(d >= 0, gamma[:, None, None] ** d.clamp(min=0), torch.zeros(()))
        self.register_buffer("decay", mask / mask.sum(-1, keepdim=True).sqrt())

    def forward(self, q, k, v):
        r = (q @ k.transpose(-1, -2) * q.shape[-1] ** -0.5) * self.decay
        o = r @ v
        return F.group_norm(o.transpose(1, 2).flatten(2).transpose(1, 2), o.shape[1])


class ClipLoss(nn.Module):
    def __init__(self):
        super().__init__()
        self.t = nn.Parameter(torch.tensor(2.6592))

    def forward(self, a, b):
        a, b = F.normalize(a, dim=-1), F.normalize(b, dim=-1)
        logits = self.t.exp() * a @ b.T
        y = torch.arange(a.shape[0], device=a.device)
        return (F.cross_entropy(logits, y) + F.cross_entropy(logits.T, y)) / 2


class MoETop2(nn.Module):
    """Top-2 routing over experts computed densely, combined by the renormalised gates."""

    def __init__(self, d, h, e):
        super().__init__()
        self.router = nn.Linear(d, e, bias=False)
        self.w1, self.w2 = nn.Parameter(torch.empty(e, d, h)), nn.Parameter(torch.empty(e, h, d))

    def forward(self, x):
        g, idx = self.router(x).softmax(-1).topk(2, -1)
        g = g / g.sum(-1, keepdim=True)
        h = torch.einsum("nd,edh->neh", x, self.w1)
        y = torch.einsum("neh,ehd->ned", F.silu(h), self.w2)
        return (y.gather(1, idx[..., None].expand(-1, -1, x.shape[1])) * g[..., None]).sum(1)


class SageMean(nn.Module):
    """GraphSAGE: neighbours' features summed per target with index_add, over the degree."""

    def __init__(self, nodes, edges, d, o):
        super().__init__()
        g = _gen(3)
        self.register_buffer("src", torch.randint(0, nodes, (edges,), generator=g))
        self.register_buffer("dst", torch.randint(0, nodes, (edges,), generator=g))
        self.lin = nn.Linear(2 * d, o)

    def forward(self, x):
        agg = torch.zeros_like(x).index_add_(0, self.dst, x[self.src])
        deg = torch.zeros(x.shape[0], device=x.device).index_add_(0, self.dst, torch.ones_like(self.dst, dtype=x.dtype))
        return F.relu(self.lin(torch.cat((x, agg / deg.clamp(min=1)[:, None]), -1)))


class AdamStep(nn.Module):
    def forward(self, p, g, m, v):
        b1, b2, lr, eps, wd, t = 0.9, 0.999, 1e-3, 1e-8, 0.01, 10
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        mh, vh = m / (1 - b1**t), v / (1 - b2**t)
        return p * (1 - lr * wd) - lr * mh / (vh.sqrt() + eps), m, v


class FakeQuant(nn.Module):
    """Per-output-channel symmetric int8 fake quantisation of a weight, then the linear."""

    def forward(self, x, w):
        s = w.abs().amax(1, keepdim=True) / 127
        wq = torch.clamp(torch.round(w / s), -128, 127) * s
        return x @ wq.T


class Int8Linear(nn.Module):
    """Weight-only int8: the int8 weight dequantised by a per-row scale before the product."""

    def __init__(self, d, o):
        super().__init__()
        self.register_buffer("w", torch.randint(-127, 128, (o, d), generator=_gen(4), dtype=torch.int8))
        self.register_buffer("s", torch.rand(o, generator=_gen(5)) / 100)

    def forward(self, x):
        return F.linear(x, self.w.float() * self.s[:, None])


class Conv3dBlock(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv, self.bn = nn.Conv3d(c, c, 3, padding=1, bias=False), nn.BatchNorm3d(c)

    def forward(self, x):
        return F.max_pool3d(F.relu(self.bn(self.conv(x))), 2)


class LRN(nn.Module):
    def forward(self, x):
        return F.local_response_norm(F.relu(x), 5, alpha=1e-4, beta=0.75, k=2.0)


class EmbBag(nn.Module):
    def __init__(self, n, d, bags, per):
        super().__init__()
        self.emb = nn.EmbeddingBag(n, d, mode="mean")
        self.register_buffer("idx", torch.randint(0, n, (bags * per,), generator=_gen(6)))
        self.register_buffer("off", torch.arange(0, bags * per, per))

    def forward(self, dense):
        return torch.cat((dense, self.emb(self.idx, self.off)), 1)


class ColourGamma(nn.Module):
    """RGB to YUV by a 3x3 matrix over channels, a gamma on Y, clamped."""

    def __init__(self):
        super().__init__()
        self.register_buffer("m", torch.tensor([[0.299, 0.587, 0.114], [-0.147, -0.289, 0.436], [0.615, -0.515, -0.100]]))

    def forward(self, x):
        yuv = torch.einsum("bchw,dc->bdhw", x.clamp(0, 1), self.m)
        return torch.cat((yuv[:, :1].clamp(min=1e-6) ** (1 / 2.2), yuv[:, 1:]), 1)


class GaussBlur(nn.Module):
    def __init__(self, c, k=9, sigma=2.0):
        super().__init__()
        t = torch.arange(k) - k // 2
        g = torch.exp(-(t.float() ** 2) / (2 * sigma**2))
        g = g / g.sum()
        self.c, self.k = c, k
        self.register_buffer("gh", g.view(1, 1, 1, k).repeat(c, 1, 1, 1))
        self.register_buffer("gv", g.view(1, 1, k, 1).repeat(c, 1, 1, 1))

    def forward(self, x):
        p = self.k // 2
        x = F.pad(x, (p, p, p, p), mode="reflect")
        return F.conv2d(F.conv2d(x, self.gh, groups=self.c), self.gv, groups=self.c)


class Sobel(nn.Module):
    def __init__(self):
        super().__init__()
        kx = torch.tensor([[-1.0, 0, 1], [-2, 0, 2], [-1, 0, 1]])
        self.register_buffer("k", torch.stack((kx, kx.T))[:, None])

    def forward(self, x):
        g = F.conv2d(x.mean(1, keepdim=True), self.k, padding=1)
        return torch.sqrt(g[:, :1] ** 2 + g[:, 1:] ** 2 + 1e-6)


class GIoU(nn.Module):
    def forward(self, a, b):
        a = torch.cat((a[:, :2], a[:, :2] + a[:, 2:].abs()), 1)
        b = torch.cat((b[:, :2], b[:, :2] + b[:, 2:].abs()), 1)
        lt, rb = torch.max(a[:, :2], b[:, :2]), torch.min(a[:, 2:], b[:, 2:])
        inter = (rb - lt).clamp(min=0).prod(1)
        area = lambda z: (z[:, 2] - z[:, 0]) * (z[:, 3] - z[:, 1])  # noqa: E731
        union = area(a) + area(b) - inter
        c = (torch.max(a[:, 2:], b[:, 2:]) - torch.min(a[:, :2], b[:, :2])).prod(1)
        return (1 - inter / union + (c - union) / c).mean()


class MedianFilter(nn.Module):
    def forward(self, x):
        b, c, h, w = x.shape
        p = F.unfold(F.pad(x, (1, 1, 1, 1), mode="replicate"), 3).view(b, c, 9, h, w)
        return p.median(2).values


class RunningMax(nn.Module):
    def forward(self, x):
        return x - x.cummax(1).values


class LogCumSumExp(nn.Module):
    def forward(self, x):
        return torch.logcumsumexp(x, -1)


class SqReluMLP(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.fc1, self.fc2 = nn.Linear(d, h), nn.Linear(h, d)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)).square())


class GEGLU(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.proj, self.out = nn.Linear(d, 2 * h), nn.Linear(h, d)

    def forward(self, x):
        a, g = self.proj(x).chunk(2, -1)
        return self.out(a * F.gelu(g))


class Trilinear(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2, mode="trilinear", align_corners=False)


class T5Bias(nn.Module):
    """T5's relative position buckets (log-spaced past half the buckets), looked up per head."""

    def __init__(self, heads, n, buckets=32, max_dist=128):
        super().__init__()
        self.emb = nn.Embedding(buckets, heads)
        self.n, self.nb, self.md = n, buckets, max_dist

    def forward(self, s):
        i = torch.arange(self.n, device=s.device)
        rel = i[None, :] - i[:, None]
        nb = self.nb // 2
        bucket = (rel > 0).long() * nb
        rel = rel.abs()
        exact = nb // 2
        big = exact + (torch.log(rel.float() / exact + 1e-9) / math.log(self.md / exact) * (nb - exact)).long()
        big = big.clamp(max=nb - 1)
        bucket = bucket + torch.where(rel < exact, rel, big)
        return torch.softmax(s + self.emb(bucket).permute(2, 0, 1)[None], -1)


class InstNorm1d(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n = nn.InstanceNorm1d(c, affine=True)

    def forward(self, x):
        return F.gelu(self.n(x))


class WSConv(nn.Module):
    """Weight standardisation (BiT): each filter to zero mean, unit variance, then the conv."""

    def __init__(self, c, o):
        super().__init__()
        self.w = nn.Parameter(torch.empty(o, c, 3, 3))
        self.gn = nn.GroupNorm(32, o)

    def forward(self, x):
        m = self.w.mean((1, 2, 3), keepdim=True)
        v = self.w.var((1, 2, 3), keepdim=True, unbiased=False)
        return F.relu(self.gn(F.conv2d(x, (self.w - m) / torch.sqrt(v + 1e-5), padding=1)))


class GRN(nn.Module):
    """ConvNeXt-V2's global response normalisation, channels last."""

    def __init__(self, c):
        super().__init__()
        self.g, self.b = nn.Parameter(torch.empty(1, 1, 1, c)), nn.Parameter(torch.empty(1, 1, 1, c))

    def forward(self, x):
        gx = torch.norm(x, p=2, dim=(1, 2), keepdim=True)
        nx = gx / (gx.mean(-1, keepdim=True) + 1e-6)
        return self.g * (x * nx) + self.b + x


class PatchMerge(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.norm, self.red = nn.LayerNorm(4 * c), nn.Linear(4 * c, 2 * c, bias=False)

    def forward(self, x):
        x = torch.cat((x[:, 0::2, 0::2], x[:, 1::2, 0::2], x[:, 0::2, 1::2], x[:, 1::2, 1::2]), -1)
        return self.red(self.norm(x))


class SoftCapAttention(nn.Module):
    """Gemma-2: logits soft-capped by tanh before a causal softmax."""

    def forward(self, q, k, v):
        n = q.shape[-2]
        s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1])
        s = 50.0 * torch.tanh(s / 50.0)
        causal = torch.ones(n, n, dtype=torch.bool, device=q.device).tril()
        return torch.softmax(s.masked_fill(~causal, float("-inf")), -1) @ v


class LMLoss(nn.Module):
    def __init__(self, n, vocab):
        super().__init__()
        y = torch.randint(0, vocab, (n,), generator=_gen(7))
        y[torch.rand(n, generator=_gen(8)) < 0.2] = -100
        self.register_buffer("y", y)

    def forward(self, logits):
        return F.cross_entropy(logits, self.y, ignore_index=-100, label_smoothing=0.1)


class Bucketize(nn.Module):
    def __init__(self, nb):
        super().__init__()
        self.register_buffer("edges", torch.linspace(-3, 3, nb))
        self.emb = nn.Embedding(nb + 1, 16)

    def forward(self, x):
        return self.emb(torch.bucketize(x, self.edges)).sum(1)


class QuantileClip(nn.Module):
    def forward(self, x):
        lo, hi = torch.quantile(x, torch.tensor([0.01, 0.99], device=x.device, dtype=x.dtype), dim=-1, keepdim=True)
        return (x.clamp(lo, hi) - lo) / (hi - lo)


CASES = [
    S("retention_4x8x512x64", "attention", lambda: Retention(8, 512), ((4, 8, 512, 64),) * 3),
    S("clip_loss_1024x512", "nlp", lambda: ClipLoss(), ((1024, 512), (1024, 512))),
    S("moe_top2_2048x512h1024e8", "mlp", lambda: MoETop2(512, 1024, 8), ((2048, 512),)),
    S("sage_mean_20000x128e200000", "graph", lambda: SageMean(20000, 200000, 128, 128), ((20000, 128),)),
    S("adam_step_4x1048576", "mlp", lambda: AdamStep(), ((4, 1048576),) * 4),
    S("fake_quant_512x1024to1024", "mlp", lambda: FakeQuant(), ((512, 1024), (1024, 1024))),
    S("int8_linear_16x4096to4096", "mlp", lambda: Int8Linear(4096, 4096), ((16, 4096),)),
    S("conv3d_2x32x16x56x56", "vision", lambda: Conv3dBlock(32), ((2, 32, 16, 56, 56),)),
    S("lrn_8x96x55x55", "vision", lambda: LRN(), ((8, 96, 55, 55),)),
    S("embbag_4096x20000d64p20", "mlp", lambda: EmbBag(20000, 64, 4096, 20), ((4096, 64),)),
    S("colour_gamma_16x3x512x512", "vision", lambda: ColourGamma(), ((16, 3, 512, 512),)),
    S("gauss_blur9_8x3x512x512", "vision", lambda: GaussBlur(3), ((8, 3, 512, 512),)),
    S("sobel_16x3x512x512", "vision", lambda: Sobel(), ((16, 3, 512, 512),)),
    S("giou_262144", "vision", lambda: GIoU(), ((262144, 4), (262144, 4))),
    S("median3_8x3x256x256", "vision", lambda: MedianFilter(), ((8, 3, 256, 256),)),
    S("running_max_64x4096", "nlp", lambda: RunningMax(), ((64, 4096),)),
    S("logcumsumexp_16x8192", "nlp", lambda: LogCumSumExp(), ((16, 8192),)),
    S("sqrelu_mlp_4096x1024h4096", "mlp", lambda: SqReluMLP(1024, 4096), ((4096, 1024),)),
    S("geglu_8x512x768h2048", "mlp", lambda: GEGLU(768, 2048), ((8, 512, 768),)),
    S("trilinear_2x32x16x32x32", "vision", lambda: Trilinear(), ((2, 32, 16, 32, 32),)),
    S("t5_buckets_4x8x512", "attention", lambda: T5Bias(8, 512), ((4, 8, 512, 512),)),
    S("instnorm1d_32x64x8000", "audio", lambda: InstNorm1d(64), ((32, 64, 8000),)),
    S("wsconv_8x64x56x56", "vision", lambda: WSConv(64, 64), ((8, 64, 56, 56),)),
    S("grn_16x56x56x384", "vision", lambda: GRN(384), ((16, 56, 56, 384),)),
    S("patch_merge_8x56x56x96", "vision", lambda: PatchMerge(96), ((8, 56, 56, 96),)),
    S("softcap_attn_4x8x1024x128", "attention", lambda: SoftCapAttention(), ((4, 8, 1024, 128),) * 3),
    S("lm_loss_8192x32000", "nlp", lambda: LMLoss(8192, 32000), ((8192, 32000),)),
    S("bucketize_65536x8b64", "mlp", lambda: Bucketize(64), ((65536, 8),)),
    S("quantile_clip_256x4096", "vision", lambda: QuantileClip(), ((256, 4096),)),
]
