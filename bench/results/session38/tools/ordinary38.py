"""Session 38: a fifth batch of ordinary programs none of sessions 32-37's sets hold, as a new
user writes them: DiT's adaLN block, QK-norm and sliding-window attention, a KV-cache decode
step, Perceiver's latent cross-attention, VQ-VAE's codebook lookup, AdaIN, NeRF's positional
encoding, SIREN, a dense GAT layer, SSIM, total variation, Chamfer, Dice, ArcFace, NT-Xent,
top-p filtering, a repetition penalty, a beam-search step, PixelCNN's masked convolution, a
ConvLSTM cell, a TCN block, SRGAN's upsampler, capsule routing, a linear recurrence by cumsum,
ECA, CBAM and coordinate attention, Transformer-XL's relative shift, weight norm, nn.Bilinear,
DLRM's interaction and padding-masked attention, as sweep cases.

    from ordinary38 import CASES"""
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


class DiTBlock(nn.Module):
    """adaLN-Zero: shift / scale / gate from the conditioning, around attention and the MLP."""

    def __init__(self, d, heads):
        super().__init__()
        self.h = heads
        self.ada = nn.Linear(d, 6 * d)
        self.qkv, self.proj = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.fc1, self.fc2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)

    def forward(self, x, c):
        b, n, d = x.shape
        s1, g1, a1, s2, g2, a2 = self.ada(F.silu(c)).chunk(6, -1)
        h = F.layer_norm(x, (d,)) * (1 + g1[:, None]) + s1[:, None]
        q, k, v = self.qkv(h).view(b, n, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        h = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, n, d)
        x = x + a1[:, None] * self.proj(h)
        h = F.layer_norm(x, (d,)) * (1 + g2[:, None]) + s2[:, None]
        return x + a2[:, None] * self.fc2(F.gelu(self.fc1(h), approximate="tanh"))


class QKNormAttention(nn.Module):
    """RMSNorm on each head's queries and keys before attention (OLMo-2, Qwen3)."""

    def __init__(self, d, heads):
        super().__init__()
        self.h = heads
        self.qkv, self.o = nn.Linear(d, 3 * d, bias=False), nn.Linear(d, d, bias=False)
        self.qn, self.kn = nn.RMSNorm(d // heads, eps=1e-6), nn.RMSNorm(d // heads, eps=1e-6)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).view(b, n, 3, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(self.qn(q), self.kn(k), v, is_causal=True)
        return self.o(a.transpose(1, 2).reshape(b, n, d))


class SlidingWindow(nn.Module):
    """Causal attention inside a window of the last `w` positions, the mask built from aranges."""

    def __init__(self, w):
        super().__init__()
        self.w = w

    def forward(self, q, k, v):
        n = q.shape[-2]
        i = torch.arange(n, device=q.device)
        mask = (i[None, :] <= i[:, None]) & (i[:, None] - i[None, :] < self.w)
        return F.scaled_dot_product_attention(q, k, v, attn_mask=mask)


class DecodeStep(nn.Module):
    """One token's attention over a KV cache plus its own key and value."""

    def forward(self, q, k_cache, v_cache, k, v):
        keys, values = torch.cat((k_cache, k), 2), torch.cat((v_cache, v), 2)
        return F.scaled_dot_product_attention(q, keys, values)


class Perceiver(nn.Module):
    """Learned latents attend to a long input (cross-attention), then an MLP."""

    def __init__(self, latents, d, heads):
        super().__init__()
        self.h = heads
        self.lat = nn.Parameter(torch.empty(latents, d))
        self.q, self.kv, self.o = nn.Linear(d, d), nn.Linear(d, 2 * d), nn.Linear(d, d)
        self.ln = nn.LayerNorm(d)

    def forward(self, x):
        b, n, d = x.shape
        q = self.q(self.lat).view(1, -1, self.h, d // self.h).transpose(1, 2).expand(b, -1, -1, -1)
        k, v = self.kv(self.ln(x)).view(b, n, 2, self.h, d // self.h).permute(2, 0, 3, 1, 4)
        a = F.scaled_dot_product_attention(q, k, v).transpose(1, 2).reshape(b, -1, d)
        return self.o(a)


class VQ(nn.Module):
    """Nearest codebook entry by squared distance, its vector, the commitment loss."""

    def __init__(self, codes, d):
        super().__init__()
        self.book = nn.Parameter(torch.empty(codes, d))

    def forward(self, z):
        dist = (z * z).sum(1, keepdim=True) - 2 * z @ self.book.t() + (self.book * self.book).sum(1)
        zq = F.embedding(dist.argmin(1), self.book)
        return zq, F.mse_loss(zq, z)


class AdaIN(nn.Module):
    """Content normalised per channel, given the style's per-channel mean and std."""

    def forward(self, c, s):
        cm, cs = c.mean((2, 3), keepdim=True), c.std((2, 3), keepdim=True) + 1e-5
        sm, ss = s.mean((2, 3), keepdim=True), s.std((2, 3), keepdim=True)
        return (c - cm) / cs * ss + sm


class NeRF(nn.Module):
    """Positional encoding (sin / cos of ten octaves) and an MLP to density and colour."""

    def __init__(self, octaves=10, width=256):
        super().__init__()
        self.register_buffer("freq", 2.0 ** torch.arange(octaves) * math.pi)
        d = 3 + 6 * octaves
        self.mlp = nn.Sequential(nn.Linear(d, width), nn.ReLU(), nn.Linear(width, width), nn.ReLU(),
                                 nn.Linear(width, 4))

    def forward(self, x):
        t = (x[..., None] * self.freq).flatten(-2)
        return self.mlp(torch.cat((x, t.sin(), t.cos()), -1))


class Siren(nn.Module):
    def __init__(self, width=256, layers=3):
        super().__init__()
        self.first = nn.Linear(2, width)
        self.hidden = nn.ModuleList(nn.Linear(width, width) for _ in range(layers))
        self.last = nn.Linear(width, 3)

    def forward(self, x):
        h = torch.sin(30 * self.first(x))
        for l in self.hidden:
            h = torch.sin(l(h))
        return self.last(h)


class GAT(nn.Module):
    """A dense graph-attention layer: edge scores from two projections, masked softmax."""

    def __init__(self, n, d, h):
        super().__init__()
        self.w = nn.Linear(d, h, bias=False)
        self.a_src, self.a_dst = nn.Parameter(torch.empty(h)), nn.Parameter(torch.empty(h))
        self.register_buffer("adj", (torch.rand(n, n, generator=_gen(2)) < 0.02) | torch.eye(n, dtype=torch.bool))

    def forward(self, x):
        h = self.w(x)
        e = F.leaky_relu((h @ self.a_src)[:, None] + (h @ self.a_dst)[None, :], 0.2)
        return torch.softmax(e.masked_fill(~self.adj, float("-inf")), -1) @ h


class SSIM(nn.Module):
    """1 - SSIM with an 11-tap Gaussian window, per channel (depthwise convolutions)."""

    def __init__(self, c):
        super().__init__()
        g = torch.exp(-((torch.arange(11) - 5.0) ** 2) / (2 * 1.5**2))
        g = g / g.sum()
        self.register_buffer("win", (g[:, None] * g[None, :]).expand(c, 1, 11, 11).contiguous())
        self.c = c

    def forward(self, x, y):
        blur = lambda t: F.conv2d(t, self.win, groups=self.c)  # noqa: E731
        mx, my = blur(x), blur(y)
        sxx, syy, sxy = blur(x * x) - mx * mx, blur(y * y) - my * my, blur(x * y) - mx * my
        c1, c2 = 0.01**2, 0.03**2
        s = ((2 * mx * my + c1) * (2 * sxy + c2)) / ((mx * mx + my * my + c1) * (sxx + syy + c2))
        return 1 - s.mean()


class TV(nn.Module):
    def forward(self, x):
        return (x[..., 1:, :] - x[..., :-1, :]).abs().mean() + (x[..., 1:] - x[..., :-1]).abs().mean()


class Chamfer(nn.Module):
    def forward(self, p, q):
        d = torch.cdist(p, q) ** 2
        return d.min(2).values.mean() + d.min(1).values.mean()


class Dice(nn.Module):
    def forward(self, logits, target):
        p, t = torch.sigmoid(logits), (target > 0).float()
        inter = (p * t).sum((1, 2, 3))
        return (1 - (2 * inter + 1) / (p.sum((1, 2, 3)) + t.sum((1, 2, 3)) + 1)).mean()


class ArcFace(nn.Module):
    """Additive angular margin on the label's class, then cross-entropy."""

    def __init__(self, n, d, classes, s=64.0, m=0.5):
        super().__init__()
        self.w = nn.Parameter(torch.empty(classes, d))
        self.register_buffer("label", torch.randint(0, classes, (n,), generator=_gen(3)))
        self.s, self.m = s, m

    def forward(self, x):
        cos = F.linear(F.normalize(x), F.normalize(self.w)).clamp(-1 + 1e-7, 1 - 1e-7)
        hot = F.one_hot(self.label, cos.shape[1]).bool()
        logits = torch.where(hot, torch.cos(torch.acos(cos) + self.m), cos) * self.s
        return F.cross_entropy(logits, self.label)


class NTXent(nn.Module):
    """SimCLR's loss: two views' embeddings, cosine similarities / tau, the other view is the class."""

    def __init__(self, n, tau=0.1):
        super().__init__()
        self.tau = tau
        self.register_buffer("target", torch.cat((torch.arange(n, 2 * n), torch.arange(n))))

    def forward(self, a, b):
        z = F.normalize(torch.cat((a, b)), dim=1)
        sim = (z @ z.t()) / self.tau
        sim = sim.masked_fill(torch.eye(z.shape[0], dtype=torch.bool, device=z.device), float("-inf"))
        return F.cross_entropy(sim, self.target)


class TopP(nn.Module):
    """Nucleus filtering: sorted probabilities' running sum past p masks the logits."""

    def __init__(self, p=0.9):
        super().__init__()
        self.p = p

    def forward(self, logits):
        sorted_logits, idx = torch.sort(logits, descending=True, dim=-1)
        cum = torch.softmax(sorted_logits, -1).cumsum(-1)
        drop = cum - torch.softmax(sorted_logits, -1) > self.p
        drop = drop.scatter(1, idx, drop)
        return logits.masked_fill(drop, float("-inf"))


class RepetitionPenalty(nn.Module):
    def __init__(self, rows, vocab, seen, penalty=1.2):
        super().__init__()
        self.register_buffer("seen", torch.randint(0, vocab, (rows, seen), generator=_gen(4)))
        self.penalty = penalty

    def forward(self, logits):
        s = logits.gather(1, self.seen)
        s = torch.where(s < 0, s * self.penalty, s / self.penalty)
        return logits.scatter(1, self.seen, s)


class BeamStep(nn.Module):
    """Log-probabilities plus the beams' scores, the best 2k continuations over all beams."""

    def __init__(self, batch, beams):
        super().__init__()
        self.b, self.k = batch, beams

    def forward(self, logits, scores):
        lp = torch.log_softmax(logits, -1) + scores[:, :1]
        top, idx = lp.view(self.b, -1).topk(2 * self.k, -1)
        return top, idx // logits.shape[-1], idx % logits.shape[-1]


class MaskedConv(nn.Module):
    """PixelCNN's type-B masked convolution: the weight times a causal mask."""

    def __init__(self, c, k=5):
        super().__init__()
        self.conv = nn.Conv2d(c, c, k, padding=k // 2)
        m = torch.ones(k, k)
        m[k // 2, k // 2 + 1 :] = 0
        m[k // 2 + 1 :] = 0
        self.register_buffer("mask", m)

    def forward(self, x):
        return F.relu(F.conv2d(x, self.conv.weight * self.mask, self.conv.bias, padding=self.conv.padding))


class ConvLSTM(nn.Module):
    def __init__(self, c, h):
        super().__init__()
        self.conv = nn.Conv2d(c + h, 4 * h, 3, padding=1)

    def forward(self, x, h, c):
        i, f, g, o = self.conv(torch.cat((x, h), 1)).chunk(4, 1)
        c = torch.sigmoid(f) * c + torch.sigmoid(i) * torch.tanh(g)
        return torch.sigmoid(o) * torch.tanh(c), c


class TCN(nn.Module):
    """Two causal dilated convolutions (left padding), ReLU, a residual."""

    def __init__(self, c, k=3, d=4):
        super().__init__()
        self.pad = (k - 1) * d
        self.c1, self.c2 = nn.Conv1d(c, c, k, dilation=d), nn.Conv1d(c, c, k, dilation=d)

    def forward(self, x):
        h = F.relu(self.c1(F.pad(x, (self.pad, 0))))
        return F.relu(x + self.c2(F.pad(h, (self.pad, 0))))


class SRUp(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv, self.act = nn.Conv2d(c, 4 * c, 3, padding=1), nn.PReLU(c)

    def forward(self, x):
        return self.act(F.pixel_shuffle(self.conv(x), 2))


class Capsules(nn.Module):
    """Dynamic routing by agreement, three iterations, squash non-linearity."""

    def forward(self, u):  # (batch, in caps, out caps, dim)
        b = torch.zeros(u.shape[:3], device=u.device)
        for it in range(3):
            c = torch.softmax(b, 2)
            s = (c[..., None] * u).sum(1)
            n2 = (s * s).sum(-1, keepdim=True)
            v = n2 / (1 + n2) * s / torch.sqrt(n2 + 1e-8)
            if it < 2:
                b = b + (u * v[:, None]).sum(-1)
        return v


class LinearRecurrence(nn.Module):
    """h_t = a_t h_{t-1} + b_t over the sequence, by cumulative sums in log space."""

    def forward(self, x, y):
        log_a = F.logsigmoid(x) * 0.005
        cum = log_a.cumsum(1)
        return torch.exp(cum) * (y * torch.exp(-cum)).cumsum(1)


class ECA(nn.Module):
    def __init__(self, k=5):
        super().__init__()
        self.conv = nn.Conv1d(1, 1, k, padding=k // 2, bias=False)

    def forward(self, x):
        w = self.conv(x.mean((2, 3))[:, None]).sigmoid()
        return x * w[:, 0, :, None, None]


class CBAMSpatial(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 1, 7, padding=3)

    def forward(self, x):
        a = torch.cat((x.mean(1, keepdim=True), x.amax(1, keepdim=True)), 1)
        return x * torch.sigmoid(self.conv(a))


class CoordAttention(nn.Module):
    def __init__(self, c, r=8):
        super().__init__()
        self.reduce = nn.Conv2d(c, c // r, 1)
        self.bn = nn.BatchNorm2d(c // r)
        self.ah, self.aw = nn.Conv2d(c // r, c, 1), nn.Conv2d(c // r, c, 1)

    def forward(self, x):
        h, w = x.shape[2:]
        y = torch.cat((x.mean(3, keepdim=True), x.mean(2, keepdim=True).transpose(2, 3)), 2)
        y = F.hardswish(self.bn(self.reduce(y)))
        yh, yw = y.split((h, w), 2)
        return x * self.ah(yh).sigmoid() * self.aw(yw.transpose(2, 3)).sigmoid()


class RelShift(nn.Module):
    """Transformer-XL's relative shift: pad a column, view as (L + 1, L), drop the first row."""

    def forward(self, content, pos):
        b, h, l, _ = content.shape
        x = pos
        x = F.pad(x, (1, 0)).view(b, h, l + 1, l)[:, :, 1:].view(b, h, l, l)
        return torch.softmax(content + x, -1)


class WeightNormLinear(nn.Module):
    def __init__(self, d, o):
        super().__init__()
        self.v, self.g, self.b = nn.Parameter(torch.empty(o, d)), nn.Parameter(torch.empty(o)), nn.Parameter(torch.empty(o))

    def forward(self, x):
        w = self.g[:, None] * self.v / self.v.norm(dim=1, keepdim=True)
        return F.linear(x, w, self.b)


class BilinearMod(nn.Module):
    def __init__(self, d1, d2, o):
        super().__init__()
        self.b = nn.Bilinear(d1, d2, o)

    def forward(self, x, y):
        return self.b(x, y)


class DLRMInteraction(nn.Module):
    """Pairwise dot products of the feature vectors, the strict upper triangle kept."""

    def __init__(self, f):
        super().__init__()
        iu = torch.triu_indices(f, f, 1)
        self.register_buffer("flat", iu[0] * f + iu[1])

    def forward(self, dense, z):
        zz = torch.bmm(z, z.transpose(1, 2)).flatten(1)
        return torch.cat((dense, zz[:, self.flat]), 1)


class PaddedAttention(nn.Module):
    """Attention with a key padding mask from per-sequence lengths."""

    def __init__(self, b, n):
        super().__init__()
        self.register_buffer("lengths", torch.randint(n // 4, n + 1, (b,), generator=_gen(5)))

    def forward(self, q, k, v):
        n = k.shape[-2]
        keep = torch.arange(n, device=q.device)[None, :] < self.lengths[:, None]
        s = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        s = s.masked_fill(~keep[:, None, None, :], float("-inf"))
        return torch.softmax(s, -1) @ v


CASES = [
    S("dit_block_8x256x384", "attention", lambda: DiTBlock(384, 6), ((8, 256, 384), (8, 384))),
    S("qknorm_attn_4x512x512h8", "attention", lambda: QKNormAttention(512, 8), ((4, 512, 512),)),
    S("sliding_window_2x8x1024x64w128", "attention", lambda: SlidingWindow(128), ((2, 8, 1024, 64),) * 3),
    S("decode_step_8x32x2047x128", "attention", lambda: DecodeStep(),
      ((8, 32, 1, 128), (8, 32, 2047, 128), (8, 32, 2047, 128), (8, 32, 1, 128), (8, 32, 1, 128))),
    S("perceiver_8x4096x512l256", "attention", lambda: Perceiver(256, 512, 8), ((8, 4096, 512),)),
    S("vq_16384x64c512", "vision", lambda: VQ(512, 64), ((16384, 64),)),
    S("adain_8x256x32x32", "vision", lambda: AdaIN(), ((8, 256, 32, 32), (8, 256, 32, 32))),
    S("nerf_65536x3", "mlp", lambda: NeRF(), ((65536, 3),)),
    S("siren_65536x2w256", "mlp", lambda: Siren(), ((65536, 2),)),
    S("gat_2048x128to64", "graph", lambda: GAT(2048, 128, 64), ((2048, 128),)),
    S("ssim_8x3x256x256", "vision", lambda: SSIM(3), ((8, 3, 256, 256), (8, 3, 256, 256))),
    S("tv_16x3x512x512", "vision", lambda: TV(), ((16, 3, 512, 512),)),
    S("chamfer_8x2048x3", "vision", lambda: Chamfer(), ((8, 2048, 3), (8, 2048, 3))),
    S("dice_16x1x256x256", "vision", lambda: Dice(), ((16, 1, 256, 256), (16, 1, 256, 256))),
    S("arcface_1024x512c10000", "nlp", lambda: ArcFace(1024, 512, 10000), ((1024, 512),)),
    S("ntxent_1024x128", "nlp", lambda: NTXent(1024), ((1024, 128), (1024, 128))),
    S("top_p_64x32000", "nlp", lambda: TopP(), ((64, 32000),)),
    S("rep_penalty_64x32000s128", "nlp", lambda: RepetitionPenalty(64, 32000, 128), ((64, 32000),)),
    S("beam_step_8x4x32000", "nlp", lambda: BeamStep(8, 4), ((32, 32000), (32, 4))),
    S("masked_conv5_16x64x64x64", "vision", lambda: MaskedConv(64), ((16, 64, 64, 64),)),
    S("convlstm_8x64x32x32h64", "vision", lambda: ConvLSTM(64, 64), ((8, 64, 32, 32), (8, 64, 32, 32), (8, 64, 32, 32))),
    S("tcn_16x128x2048", "audio", lambda: TCN(128), ((16, 128, 2048),)),
    S("srgan_up_4x64x64x64", "vision", lambda: SRUp(64), ((4, 64, 64, 64),)),
    S("capsules_128x1152x10x16", "vision", lambda: Capsules(), ((128, 1152, 10, 16),)),
    S("linear_recurrence_8x1024x512", "nlp", lambda: LinearRecurrence(), ((8, 1024, 512), (8, 1024, 512))),
    S("eca_16x256x56x56", "vision", lambda: ECA(), ((16, 256, 56, 56),)),
    S("cbam_spatial_16x256x56x56", "vision", lambda: CBAMSpatial(), ((16, 256, 56, 56),)),
    S("coord_attn_16x128x56x56", "vision", lambda: CoordAttention(128), ((16, 128, 56, 56),)),
    S("relshift_4x8x512", "attention", lambda: RelShift(), ((4, 8, 512, 512), (4, 8, 512, 512))),
    S("weightnorm_4096x1024to1024", "mlp", lambda: WeightNormLinear(1024, 1024), ((4096, 1024),)),
    S("bilinear_1024x256x256to128", "mlp", lambda: BilinearMod(256, 256, 128), ((1024, 256), (1024, 256))),
    S("dlrm_2048x27x128", "mlp", lambda: DLRMInteraction(27), ((2048, 128), (2048, 27, 128))),
    S("padded_attn_8x8x512x64", "attention", lambda: PaddedAttention(8, 512), ((8, 8, 512, 64),) * 3),
]
