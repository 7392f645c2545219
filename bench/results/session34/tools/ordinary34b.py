"""Session 34: a fourth batch of ordinary programs: Swin window attention, PointNet, a GCN layer,
cross-attention, T5's relative bias, a VAE's reparameterisation and KL, WaveNet's gated
activation, a mel filterbank, YOLO box decoding, box IoU, attention pooling, a mixture's
log-likelihood, dense MoE mixing, PoolFormer, CoordConv, Sinkhorn, power iteration, a triplet
loss, the temporal shift, a ShuffleNet unit, bicubic resizing, token dropping by score,
multi-query attention and causal linear attention, as sweep cases.

    from ordinary34b import CASES"""
import math
import sys

import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, "bench")
import sweep  # noqa: E402

S = sweep.SweepCase


class SwinWindow(nn.Module):
    """Window partition (7 x 7), attention inside each window, windows merged back."""

    def __init__(self, c, heads, w=7):
        super().__init__()
        self.w, self.h = w, heads
        self.qkv, self.proj = nn.Linear(c, 3 * c), nn.Linear(c, c)

    def forward(self, x):
        b, hh, ww, c = x.shape
        w = self.w
        t = x.view(b, hh // w, w, ww // w, w, c).permute(0, 1, 3, 2, 4, 5).reshape(-1, w * w, c)
        q, k, v = self.qkv(t).reshape(t.shape[0], w * w, 3, self.h, c // self.h).permute(2, 0, 3, 1, 4)
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(c // self.h), -1) @ v
        a = self.proj(a.transpose(1, 2).reshape(t.shape[0], w * w, c))
        return a.view(b, hh // w, ww // w, w, w, c).permute(0, 1, 3, 2, 4, 5).reshape(b, hh, ww, c)


class PointNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.m = nn.Sequential(nn.Conv1d(3, 64, 1), nn.BatchNorm1d(64), nn.ReLU(),
                               nn.Conv1d(64, 128, 1), nn.BatchNorm1d(128), nn.ReLU(),
                               nn.Conv1d(128, 1024, 1))

    def forward(self, x):
        return self.m(x).amax(-1)


class GCN(nn.Module):
    """Symmetric-normalised dense adjacency times features times weight."""

    def __init__(self, n, d, h):
        super().__init__()
        self.register_buffer("adj", (torch.rand(n, n) < 0.01).float())
        self.w = nn.Linear(d, h)

    def forward(self, x):
        a = self.adj + torch.eye(self.adj.shape[0], device=x.device)
        dinv = a.sum(-1).rsqrt()
        return F.relu(dinv[:, None] * (a @ (dinv[:, None] * self.w(x))))


class CrossAttn(nn.Module):
    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v)


class T5Bias(nn.Module):
    """Scores plus a learned bias per (head, relative-position bucket)."""

    def __init__(self, h, s, buckets=32):
        super().__init__()
        pos = torch.arange(s)
        rel = (pos[None, :] - pos[:, None]).clamp(-buckets // 2, buckets // 2 - 1) + buckets // 2
        self.register_buffer("bucket", rel)
        self.bias = nn.Embedding(buckets, h)

    def forward(self, q, k, v):
        s = q @ k.transpose(-1, -2) + self.bias(self.bucket).permute(2, 0, 1)
        return torch.softmax(s, -1) @ v


class VAE(nn.Module):
    def forward(self, mu, logvar, eps):
        z = mu + eps * torch.exp(0.5 * logvar)
        kl = -0.5 * torch.sum(1 + logvar - mu.pow(2) - logvar.exp(), dim=-1)
        return z.sum(-1) + kl


class WaveNetGate(nn.Module):
    def __init__(self, c, d):
        super().__init__()
        self.f = nn.Conv1d(c, c, 2, dilation=d, padding=d)
        self.g = nn.Conv1d(c, c, 2, dilation=d, padding=d)
        self.o = nn.Conv1d(c, c, 1)

    def forward(self, x):
        t = x.shape[-1]
        h = torch.tanh(self.f(x)[..., :t]) * torch.sigmoid(self.g(x)[..., :t])
        return x + self.o(h)


class Mel(nn.Module):
    def __init__(self, nfft, mels):
        super().__init__()
        self.fb = nn.Parameter(torch.rand(nfft // 2 + 1, mels))

    def forward(self, re, im):
        return torch.log(torch.clamp((re * re + im * im) @ self.fb, min=1e-10))


class YoloDecode(nn.Module):
    """(b, anchors * (5 + classes), h, w) -> boxes and scores."""

    def __init__(self, a, nc, h, w):
        super().__init__()
        self.a, self.nc = a, nc
        gy, gx = torch.meshgrid(torch.arange(h).float(), torch.arange(w).float(), indexing="ij")
        self.register_buffer("grid", torch.stack([gx, gy], 0)[None, None])
        self.register_buffer("anchor", torch.rand(1, a, 2, 1, 1) * 4)

    def forward(self, p):
        b, _, h, w = p.shape
        p = p.view(b, self.a, 5 + self.nc, h, w)
        xy = (torch.sigmoid(p[:, :, :2]) + self.grid) * 8
        wh = torch.exp(p[:, :, 2:4]) * self.anchor
        conf = torch.sigmoid(p[:, :, 4:5]) * torch.sigmoid(p[:, :, 5:])
        return torch.cat([xy, wh], 2).sum() + conf.amax(2).sum()


class BoxIoU(nn.Module):
    def forward(self, a, b):
        a = torch.cat([a[:, :2], a[:, :2] + a[:, 2:].abs()], 1)
        b = torch.cat([b[:, :2], b[:, :2] + b[:, 2:].abs()], 1)
        lt = torch.max(a[:, None, :2], b[None, :, :2])
        rb = torch.min(a[:, None, 2:], b[None, :, 2:])
        inter = (rb - lt).clamp(min=0).prod(-1)
        area = lambda x: (x[:, 2] - x[:, 0]) * (x[:, 3] - x[:, 1])  # noqa: E731
        return inter / (area(a)[:, None] + area(b)[None] - inter)


class AttnPool(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.w = nn.Linear(d, 1)

    def forward(self, x):
        return (torch.softmax(self.w(x), 1) * x).sum(1)


class GMM(nn.Module):
    """Log-likelihood under a diagonal Gaussian mixture: logsumexp over components."""

    def __init__(self, k, d):
        super().__init__()
        self.mu, self.logs = nn.Parameter(torch.randn(k, d)), nn.Parameter(torch.randn(k, d) * 0.1)
        self.logpi = nn.Parameter(torch.randn(k))

    def forward(self, x):
        z = (x[:, None, :] - self.mu) * torch.exp(-self.logs)
        lp = -0.5 * (z * z).sum(-1) - self.logs.sum(-1) + self.logpi
        return torch.logsumexp(lp, -1)


class DenseMoE(nn.Module):
    def __init__(self, d, e):
        super().__init__()
        self.gate = nn.Linear(d, e)
        self.w = nn.Parameter(torch.randn(e, d, d) / math.sqrt(d))

    def forward(self, x):
        g = torch.softmax(self.gate(x), -1)
        y = torch.einsum("td,edh->teh", x, self.w)
        return torch.einsum("te,teh->th", g, y)


class PoolFormer(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.n = nn.GroupNorm(1, c)

    def forward(self, x):
        y = self.n(x)
        return x + F.avg_pool2d(y, 3, 1, 1, count_include_pad=False) - y


class CoordConv(nn.Module):
    def __init__(self, c, o):
        super().__init__()
        self.conv = nn.Conv2d(c + 2, o, 1)

    def forward(self, x):
        b, _, h, w = x.shape
        yy = torch.linspace(-1, 1, h, device=x.device)[None, None, :, None].expand(b, 1, h, w)
        xx = torch.linspace(-1, 1, w, device=x.device)[None, None, None, :].expand(b, 1, h, w)
        return self.conv(torch.cat([x, yy, xx], 1))


class Sinkhorn(nn.Module):
    def forward(self, c):
        k = torch.exp(-c / 0.1)
        for _ in range(3):
            k = k / k.sum(-1, keepdim=True)
            k = k / k.sum(-2, keepdim=True)
        return k


class PowerIter(nn.Module):
    def forward(self, a, v):
        for _ in range(4):
            v = F.normalize(a @ v, dim=0)
        return v


class Triplet(nn.Module):
    def forward(self, a, p, n):
        return F.triplet_margin_loss(a, p, n, margin=1.0)


class TSM(nn.Module):
    """Temporal shift: an eighth of the channels one step back in time, an eighth forward."""

    def __init__(self, t):
        super().__init__()
        self.t = t

    def forward(self, x):
        nt, c, h, w = x.shape
        x = x.view(nt // self.t, self.t, c, h, w)
        f = c // 8
        out = torch.zeros_like(x)
        out[:, :-1, :f] = x[:, 1:, :f]
        out[:, 1:, f:2 * f] = x[:, :-1, f:2 * f]
        out[:, :, 2 * f:] = x[:, :, 2 * f:]
        return out.view(nt, c, h, w)


class ShuffleUnit(nn.Module):
    def __init__(self, c, g):
        super().__init__()
        self.g = g
        self.c1 = nn.Conv2d(c, c, 1, groups=g)
        self.dw = nn.Conv2d(c, c, 3, padding=1, groups=c)
        self.c2 = nn.Conv2d(c, c, 1, groups=g)

    def forward(self, x):
        b, c, h, w = x.shape
        y = F.relu(self.c1(x))
        y = y.view(b, self.g, c // self.g, h, w).transpose(1, 2).reshape(b, c, h, w)
        return F.relu(x + self.c2(self.dw(y)))


class Bicubic(nn.Module):
    def forward(self, x):
        return F.interpolate(x, scale_factor=2, mode="bicubic", align_corners=False)


class TokenDrop(nn.Module):
    """Keep the half of the tokens with the largest score."""

    def forward(self, x, s):
        idx = s.topk(x.shape[1] // 2, dim=1).indices
        return torch.gather(x, 1, idx[..., None].expand(-1, -1, x.shape[-1]))


class MQA(nn.Module):
    def forward(self, q, k, v):
        h = q.shape[1]
        return F.scaled_dot_product_attention(q, k.expand(-1, h, -1, -1), v.expand(-1, h, -1, -1), is_causal=True)


class LinearAttn(nn.Module):
    """Causal linear attention: running sums of phi(k) v^T, read by phi(q)."""

    def forward(self, q, k, v):
        q, k = F.elu(q) + 1, F.elu(k) + 1
        kv = torch.cumsum(k[..., :, None] * v[..., None, :], dim=2)
        z = torch.cumsum(k, dim=2)
        num = (q[..., :, None] * kv).sum(-2)
        return num / ((q * z).sum(-1, keepdim=True) + 1e-6)


CASES = [
    S("swin_window_8x56x56x96", "attention", lambda: SwinWindow(96, 3), ((8, 56, 56, 96),)),
    S("pointnet_32x3x2048", "vision", lambda: PointNet(), ((32, 3, 2048),)),
    S("gcn_4096x256to128", "graph", lambda: GCN(4096, 256, 128), ((4096, 256),)),
    S("cross_attn_8x8x128x1024x64", "attention", lambda: CrossAttn(), ((8, 8, 128, 64), (8, 8, 1024, 64), (8, 8, 1024, 64))),
    S("t5bias_8x8x256x64", "attention", lambda: T5Bias(8, 256), ((8, 8, 256, 64),) * 3),
    S("vae_4096x512", "loss", lambda: VAE(), ((4096, 512),) * 3),
    S("wavenet_16x128x4000", "audio", lambda: WaveNetGate(128, 4), ((16, 128, 4000),)),
    S("mel_16x400x257to80", "audio", lambda: Mel(512, 80), ((16, 400, 257),) * 2),
    S("yolo_decode_16x255x52x52", "vision", lambda: YoloDecode(3, 80, 52, 52), ((16, 255, 52, 52),)),
    S("box_iou_2000x3000", "vision", lambda: BoxIoU(), ((2000, 4), (3000, 4))),
    S("attn_pool_64x512x768", "nlp", lambda: AttnPool(768), ((64, 512, 768),)),
    S("gmm_16384x32k64", "stats", lambda: GMM(64, 32), ((16384, 32),)),
    S("dense_moe_2048x256e8", "mlp", lambda: DenseMoE(256, 8), ((2048, 256),)),
    S("poolformer_8x64x56x56", "vision", lambda: PoolFormer(64), ((8, 64, 56, 56),)),
    S("coordconv_8x64x64x64", "vision", lambda: CoordConv(64, 64), ((8, 64, 64, 64),)),
    S("sinkhorn_64x256x256", "stats", lambda: Sinkhorn(), ((64, 256, 256),)),
    S("power_iter_4096", "stats", lambda: PowerIter(), ((4096, 4096), (4096, 1))),
    S("triplet_8192x256", "loss", lambda: Triplet(), ((8192, 256),) * 3),
    S("tsm_64x256x14x14", "vision", lambda: TSM(8), ((64, 256, 14, 14),)),
    S("shuffle_unit_16x240x28x28", "vision", lambda: ShuffleUnit(240, 3), ((16, 240, 28, 28),)),
    S("bicubic2_4x64x64x64", "resize", lambda: Bicubic(), ((4, 64, 64, 64),)),
    S("token_drop_32x784x384", "nlp", lambda: TokenDrop(), ((32, 784, 384), (32, 784))),
    S("mqa_4x16x512x64", "attention", lambda: MQA(), ((4, 16, 512, 64), (4, 1, 512, 64), (4, 1, 512, 64))),
    S("linear_attn_2x4x256x32", "attention", lambda: LinearAttn(), ((2, 4, 256, 32),) * 3),
]
