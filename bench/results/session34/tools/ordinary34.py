"""Session 34: a third batch of ordinary programs neither the sweep nor sessions 32-33's sets
hold, as a new user writes them: recurrent cells, nn.MultiheadAttention and
nn.TransformerEncoderLayer, the conformer's convolution module, MLP-Mixer, losses (KL, label
smoothing, BCE, Huber, CLIP), statistics (covariance, Gram matrices, column means), k-means
assignment, timestep embeddings, ALiBi, channel shuffle, reflection padding, pooling in 1-D,
GQA head repetition and everyday pointwise chains, as sweep cases.

    from ordinary34 import CASES"""
import math
import sys

import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, "bench")
import sweep  # noqa: E402

S = sweep.SweepCase


class LSTMCell(nn.Module):
    """One step of an LSTM written out: gates from two linears, chunked four ways."""

    def __init__(self, d, h):
        super().__init__()
        self.i, self.h = nn.Linear(d, 4 * h), nn.Linear(h, 4 * h, bias=False)

    def forward(self, x, h, c):
        i, f, g, o = (self.i(x) + self.h(h)).chunk(4, -1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c)


class GRUCellMod(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.cell = nn.GRUCell(d, h)

    def forward(self, x, h):
        return self.cell(x, h)


class MHA(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.a = nn.MultiheadAttention(d, h, batch_first=True)

    def forward(self, x):
        return self.a(x, x, x, need_weights=False)[0]


class EncoderLayer(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.l = nn.TransformerEncoderLayer(d, h, 4 * d, dropout=0.0, batch_first=True, norm_first=True)

    def forward(self, x):
        return self.l(x)


class ConformerConv(nn.Module):
    """Pointwise conv, GLU, depthwise conv1d, BatchNorm, SiLU, pointwise conv (b, t, d)."""

    def __init__(self, d, k=31):
        super().__init__()
        self.ln = nn.LayerNorm(d)
        self.pw1 = nn.Conv1d(d, 2 * d, 1)
        self.dw = nn.Conv1d(d, d, k, padding=k // 2, groups=d)
        self.bn = nn.BatchNorm1d(d)
        self.pw2 = nn.Conv1d(d, d, 1)

    def forward(self, x):
        y = self.ln(x).transpose(1, 2)
        y = F.glu(self.pw1(y), dim=1)
        y = self.pw2(F.silu(self.bn(self.dw(y))))
        return x + y.transpose(1, 2)


class Mixer(nn.Module):
    """MLP-Mixer block: token mixing over the patch axis, then channel mixing."""

    def __init__(self, p, d):
        super().__init__()
        self.n1, self.n2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.t1, self.t2 = nn.Linear(p, 256), nn.Linear(256, p)
        self.c1, self.c2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x):
        y = self.n1(x).transpose(1, 2)
        x = x + self.t2(F.gelu(self.t1(y))).transpose(1, 2)
        return x + self.c2(F.gelu(self.c1(self.n2(x))))


class KLDiv(nn.Module):
    def forward(self, a, b):
        return F.kl_div(F.log_softmax(a, -1), F.softmax(b, -1), reduction="batchmean")


class LabelSmooth(nn.Module):
    def __init__(self, n, c):
        super().__init__()
        self.register_buffer("t", torch.randint(0, c, (n,)))

    def forward(self, x):
        return F.cross_entropy(x, self.t, label_smoothing=0.1)


class BCE(nn.Module):
    def forward(self, x, y):
        return F.binary_cross_entropy_with_logits(x, torch.sigmoid(y))


class Huber(nn.Module):
    def forward(self, x, y):
        return F.smooth_l1_loss(x, y, beta=0.5) + F.huber_loss(x, y, delta=2.0)


class Clip(nn.Module):
    """CLIP's symmetric InfoNCE over normalized embeddings."""

    def forward(self, a, b):
        a, b = F.normalize(a, dim=-1), F.normalize(b, dim=-1)
        logits = a @ b.T * 14.3
        t = torch.arange(a.shape[0], device=a.device)
        return (F.cross_entropy(logits, t) + F.cross_entropy(logits.T, t)) / 2


class GatherLogProb(nn.Module):
    """Per-token log-probability of the taken tokens (RL fine-tuning)."""

    def __init__(self, b, s, v):
        super().__init__()
        self.register_buffer("ids", torch.randint(0, v, (b, s, 1)))

    def forward(self, logits):
        return torch.gather(F.log_softmax(logits, -1), -1, self.ids).squeeze(-1)


class Cov(nn.Module):
    def forward(self, x):
        y = x - x.mean(0, keepdim=True)
        return y.T @ y / (x.shape[0] - 1)


class Gram(nn.Module):
    """Style loss's Gram matrices of (b, c, h, w) features."""

    def forward(self, f):
        b, c, h, w = f.shape
        f = f.reshape(b, c, h * w)
        return f @ f.transpose(1, 2) / (c * h * w)


class ColMean(nn.Module):
    def forward(self, x):
        return x.mean(0) + x.std(0)


class KMeans(nn.Module):
    """Nearest centroid by ||x||^2 - 2 x.c + ||c||^2, as an index."""

    def __init__(self, k, d):
        super().__init__()
        self.c = nn.Parameter(torch.randn(k, d))

    def forward(self, x):
        d = (x * x).sum(-1, keepdim=True) - 2 * x @ self.c.T + (self.c * self.c).sum(-1)
        return d.argmin(-1).float()


class Timestep(nn.Module):
    """Diffusion timestep embedding: sinusoids of t, then an MLP."""

    def __init__(self, d):
        super().__init__()
        self.register_buffer("f", torch.exp(-math.log(10000) * torch.arange(d // 2).float() / (d // 2)))
        self.l1, self.l2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, 4 * d)

    def forward(self, t):
        a = t[:, None] * 1000 * self.f[None]
        return self.l2(F.silu(self.l1(torch.cat([a.cos(), a.sin()], -1))))


class Alibi(nn.Module):
    """Attention scores with ALiBi's linear biases, causal, softmax, times V."""

    def __init__(self, h, s):
        super().__init__()
        slopes = torch.tensor([2 ** (-8 * (i + 1) / h) for i in range(h)])
        pos = torch.arange(s)
        self.register_buffer("bias", slopes[:, None, None] * (pos[None, :] - pos[:, None]).float())

    def forward(self, q, k, v):
        s = q @ k.transpose(-1, -2) / math.sqrt(q.shape[-1]) + self.bias
        s = s.masked_fill(torch.ones_like(s, dtype=torch.bool).triu(1), float("-inf"))
        return torch.softmax(s, -1) @ v


class ChannelShuffle(nn.Module):
    def __init__(self, g):
        super().__init__()
        self.g = g

    def forward(self, x):
        b, c, h, w = x.shape
        return F.relu(x.view(b, self.g, c // self.g, h, w).transpose(1, 2).reshape(b, c, h, w))


class ReflectConv(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3)

    def forward(self, x):
        return self.conv(F.pad(x, (1, 1, 1, 1), mode="reflect"))


class Pool1d(nn.Module):
    def forward(self, x):
        return F.max_pool1d(x, 3, 2, 1) + F.avg_pool1d(x, 3, 2, 1)


class GQA(nn.Module):
    """Grouped-query attention written by hand: K and V repeated per head group."""

    def forward(self, q, k, v):
        g = q.shape[1] // k.shape[1]
        k, v = k.repeat_interleave(g, 1), v.repeat_interleave(g, 1)
        return torch.softmax(q @ k.transpose(-1, -2) / 8.0, -1) @ v


class Acts(nn.Module):
    def forward(self, x):
        return F.mish(x) + F.hardswish(x) + F.softplus(x) + F.elu(x) + F.selu(x)


class Erf(nn.Module):
    def forward(self, x):
        return torch.erf(x) * torch.log1p(x.abs()) + torch.pow(x, 3) - torch.rsqrt(x * x + 1)


class MaskedSoftmax(nn.Module):
    """Softmax over keys under a padding mask broadcast from (b, 1, 1, s)."""

    def __init__(self, b, s):
        super().__init__()
        self.register_buffer("keep", torch.rand(b, 1, 1, s) > 0.2)

    def forward(self, x):
        return torch.softmax(x.masked_fill(~self.keep, -1e9), -1)


class Outer(nn.Module):
    def forward(self, a, b):
        return torch.einsum("bi,bj->bij", a, b).sum(0)


class Matvec(nn.Module):
    def forward(self, m, v):
        return torch.einsum("bij,bj->bi", m, v)


class Tril(nn.Module):
    def forward(self, x):
        return torch.tril(x) + torch.triu(x, 1).T


class Stack(nn.Module):
    def forward(self, a, b, c):
        return torch.stack([a, b, c], 0).amax(0) - torch.stack([a, b, c], -1).mean(-1)


class Cumprod(nn.Module):
    def forward(self, x):
        return torch.cumprod(torch.sigmoid(x), -1)


class UpConv(nn.Module):
    """Decoder step: nearest upsample, 3x3 conv, GroupNorm, SiLU."""

    def __init__(self, c):
        super().__init__()
        self.conv, self.gn = nn.Conv2d(c, c, 3, padding=1), nn.GroupNorm(8, c)

    def forward(self, x):
        return F.silu(self.gn(self.conv(F.interpolate(x, scale_factor=2, mode="nearest"))))


CASES = [
    S("lstm_cell_256x1024x1024", "rnn", lambda: LSTMCell(1024, 1024), ((256, 1024), (256, 1024), (256, 1024))),
    S("gru_cell_512x512x768", "rnn", lambda: GRUCellMod(512, 768), ((512, 512), (512, 768))),
    S("mha_8x256x512h8", "attention", lambda: MHA(512, 8), ((8, 256, 512),)),
    S("encoder_layer_4x256x512", "block", lambda: EncoderLayer(512, 8), ((4, 256, 512),)),
    S("conformer_conv_8x400x256", "audio", lambda: ConformerConv(256), ((8, 400, 256),)),
    S("mixer_16x196x512", "block", lambda: Mixer(196, 512), ((16, 196, 512),)),
    S("kldiv_2048x5000", "loss", lambda: KLDiv(), ((2048, 5000),) * 2),
    S("label_smooth_8192x1000", "loss", lambda: LabelSmooth(8192, 1000), ((8192, 1000),)),
    S("bce_64x1x256x256", "loss", lambda: BCE(), ((64, 1, 256, 256),) * 2),
    S("huber_16x3x512x512", "loss", lambda: Huber(), ((16, 3, 512, 512),) * 2),
    S("clip_1024x512", "loss", lambda: Clip(), ((1024, 512),) * 2),
    S("gather_logprob_8x512x32000", "nlp", lambda: GatherLogProb(8, 512, 32000), ((8, 512, 32000),)),
    S("cov_65536x256", "reduce", lambda: Cov(), ((65536, 256),)),
    S("gram_8x256x64x64", "contraction", lambda: Gram(), ((8, 256, 64, 64),)),
    S("colmean_std_100000x300", "reduce", lambda: ColMean(), ((100000, 300),)),
    S("kmeans_65536x128k256", "contraction", lambda: KMeans(256, 128), ((65536, 128),)),
    S("timestep_256x320", "mlp", lambda: Timestep(320), ((256,),)),
    S("alibi_4x16x512x64", "attention", lambda: Alibi(16, 512), ((4, 16, 512, 64),) * 3),
    S("chshuffle_16x232x28x28", "vision", lambda: ChannelShuffle(2), ((16, 232, 28, 28),)),
    S("reflect_conv_4x64x128x128", "vision", lambda: ReflectConv(64), ((4, 64, 128, 128),)),
    S("pool1d_32x256x4000", "pool", lambda: Pool1d(), ((32, 256, 4000),)),
    S("gqa_hand_2x32x512x128kv8", "attention", lambda: GQA(), ((2, 32, 512, 128), (2, 8, 512, 128), (2, 8, 512, 128))),
    S("acts_16x1024x1024", "pointwise", lambda: Acts(), ((16, 1024, 1024),)),
    S("erf_chain_8x3x1000x1000", "pointwise", lambda: Erf(), ((8, 3, 1000, 1000),)),
    S("masked_softmax_8x12x384x384", "reduce", lambda: MaskedSoftmax(8, 384), ((8, 12, 384, 384),)),
    S("outer_sum_4096x256x300", "contraction", lambda: Outer(), ((4096, 256), (4096, 300))),
    S("matvec_512x256x384", "contraction", lambda: Matvec(), ((512, 256, 384), (512, 384))),
    S("tril_4099x4099", "pointwise", lambda: Tril(), ((4099, 4099),)),
    S("stack_3x32x1024x1024", "pointwise", lambda: Stack(), ((32, 1024, 1024),) * 3),
    S("cumprod_64x8192", "scan", lambda: Cumprod(), ((64, 8192),)),
    S("upconv_4x128x64x64", "vision", lambda: UpConv(128), ((4, 128, 64, 64),)),
]
