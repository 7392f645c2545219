"""Session 47: an eighth batch of ordinary programs none of sessions 32-43's sets hold, as a new
user writes them: torchvision-style preprocessing (antialiased resize + normalize), audio framing
by as_strided with a Hann window, a contrastive similarity with its diagonal masked by
fill_diagonal_, LeNet, a StyleGAN2 modulated convolution (grouped by sample), FiLM, Swin's
relative-position bias, batched rigid transforms of point clouds, a BERT MLM head onto a vocab
of 30522, a Normal log-density, BiFPN's fast normalized fusion, keypoint soft-argmax, a
non-local block, dense graph diffusion, global gradient-norm clipping, mixup, GPT-J's
interleaved rotary, an MLP-Mixer token MLP with odd sizes, a depthwise-separable 1-D conv stack,
multi-scale feature pyramid top-down merging, a pairwise cosine-similarity loss, a gated
residual (highway) layer, and a temporal mean/max pooling head, as sweep cases.

    from ordinary47 import CASES"""
import math
import sys

import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, "bench")
import sweep  # noqa: E402

S = sweep.SweepCase


class Preprocess(nn.Module):
    """torchvision's Resize(224, antialias=True) then Normalize(mean, std)."""

    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.tensor([0.485, 0.456, 0.406]).view(1, 3, 1, 1))
        self.register_buffer("std", torch.tensor([0.229, 0.224, 0.225]).view(1, 3, 1, 1))

    def forward(self, x):
        x = F.interpolate(x.clamp(0, 1), size=(224, 224), mode="bilinear", antialias=True, align_corners=False)
        return (x - self.mean) / self.std


class Frames(nn.Module):
    """Audio framing: 25 ms windows every 10 ms (as_strided), times a Hann window, log energy."""

    def __init__(self, n=16000, win=400, hop=160):
        super().__init__()
        self.win, self.hop, self.count = win, hop, 1 + (n - win) // hop
        self.register_buffer("hann", torch.hann_window(win))

    def forward(self, x):
        b, n = x.shape
        f = x.as_strided((b, self.count, self.win), (n, self.hop, 1)) * self.hann
        return torch.log(f.pow(2).sum(-1) + 1e-6)


class SimMaskDiag(nn.Module):
    """SimCLR's logits: normalized embeddings, similarity / temperature, own pair masked out."""

    def forward(self, z):
        z = F.normalize(z, dim=-1)
        sim = z @ z.T / 0.1
        sim = sim.fill_diagonal_(float("-inf"))
        return torch.log_softmax(sim, dim=-1)


class LeNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.c1, self.c2 = nn.Conv2d(1, 6, 5, padding=2), nn.Conv2d(6, 16, 5)
        self.f1, self.f2, self.f3 = nn.Linear(400, 120), nn.Linear(120, 84), nn.Linear(84, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.c1(x)), 2)
        x = F.max_pool2d(F.relu(self.c2(x)), 2)
        x = F.relu(self.f1(x.flatten(1)))
        return self.f3(F.relu(self.f2(x)))


class ModConv(nn.Module):
    """StyleGAN2's modulated 3x3 conv: weights scaled per sample by a style, demodulated, run as
    one grouped convolution over the batch."""

    def __init__(self, c, w_dim=512):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(c, c, 3, 3))
        self.affine = nn.Linear(w_dim, c)

    def forward(self, x, w):
        b, c, h, wd = x.shape
        s = self.affine(w) + 1.0
        wt = self.weight[None] * s[:, None, :, None, None]
        wt = wt * torch.rsqrt(wt.pow(2).sum((2, 3, 4), keepdim=True) + 1e-8)
        out = F.conv2d(x.reshape(1, b * c, h, wd), wt.reshape(b * c, c, 3, 3), padding=1, groups=b)
        return out.reshape(b, c, h, wd)


class FiLM(nn.Module):
    def __init__(self, c, d):
        super().__init__()
        self.proj = nn.Linear(d, 2 * c)

    def forward(self, x, cond):
        gamma, beta = self.proj(cond).chunk(2, dim=-1)
        return F.silu(x * (1 + gamma[:, :, None, None]) + beta[:, :, None, None])


class SwinRelBias(nn.Module):
    """Window attention with Swin's relative-position bias (a table gathered by a constant index)."""

    def __init__(self, heads=3, win=7):
        super().__init__()
        self.table = nn.Parameter(torch.empty((2 * win - 1) ** 2, heads))
        coords = torch.stack(torch.meshgrid(torch.arange(win), torch.arange(win), indexing="ij")).flatten(1)
        rel = (coords[:, :, None] - coords[:, None, :]).permute(1, 2, 0) + (win - 1)
        self.register_buffer("index", rel[..., 0] * (2 * win - 1) + rel[..., 1])
        self.heads = heads

    def forward(self, q, k, v):
        bias = self.table[self.index.flatten()].view(49, 49, self.heads).permute(2, 0, 1)
        attn = (q @ k.transpose(-2, -1)) * q.shape[-1] ** -0.5 + bias
        return attn.softmax(-1) @ v


class RigidTransform(nn.Module):
    """Points of each cloud through its pose: p R^T + t (batched 3x3)."""

    def forward(self, pts, rot, t):
        return pts @ rot.transpose(-1, -2) + t[:, None, :]


class MLMHead(nn.Module):
    """BERT's prediction head: dense + GELU + LayerNorm, decoded onto a vocabulary of 30522."""

    def __init__(self, d=768, vocab=30522):
        super().__init__()
        self.dense, self.ln, self.decoder = nn.Linear(d, d), nn.LayerNorm(d), nn.Linear(d, vocab)

    def forward(self, x):
        return self.decoder(self.ln(F.gelu(self.dense(x))))


class NormalLogProb(nn.Module):
    """A diagonal Gaussian policy's log-density, scale by softplus."""

    def forward(self, x, mu, s):
        scale = F.softplus(s) + 1e-4
        z = (x - mu) / scale
        return (-0.5 * z * z - torch.log(scale) - 0.5 * math.log(2 * math.pi)).sum(-1)


class BiFPNFuse(nn.Module):
    """BiFPN's fast normalized fusion of a level with the upsampled coarser one, then a depthwise
    separable conv."""

    def __init__(self, c):
        super().__init__()
        self.w = nn.Parameter(torch.empty(2))
        self.dw, self.pw = nn.Conv2d(c, c, 3, padding=1, groups=c), nn.Conv2d(c, c, 1)

    def forward(self, x, coarse):
        w = F.relu(self.w)
        w = w / (w.sum() + 1e-4)
        up = F.interpolate(coarse, scale_factor=2, mode="nearest")
        return self.pw(self.dw(F.silu(w[0] * x + w[1] * up)))


class SoftArgmax(nn.Module):
    """Keypoint heatmaps to coordinates: softmax over the map, expected x and y."""

    def forward(self, h):
        b, k, hh, ww = h.shape
        p = torch.softmax(h.flatten(2) * 10.0, -1).view(b, k, hh, ww)
        xs = torch.linspace(0, 1, ww, device=h.device)
        ys = torch.linspace(0, 1, hh, device=h.device)
        return torch.stack([(p.sum(2) * xs).sum(-1), (p.sum(3) * ys).sum(-1)], -1)


class NonLocal(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.theta, self.phi, self.g = nn.Conv2d(c, c // 2, 1), nn.Conv2d(c, c // 2, 1), nn.Conv2d(c, c // 2, 1)
        self.out = nn.Conv2d(c // 2, c, 1)

    def forward(self, x):
        b, c, h, w = x.shape
        t = self.theta(x).flatten(2).transpose(1, 2)
        p = self.phi(x).flatten(2)
        g = self.g(x).flatten(2).transpose(1, 2)
        y = torch.softmax(t @ p, -1) @ g
        return x + self.out(y.transpose(1, 2).reshape(b, c // 2, h, w))


class GraphDiffuse(nn.Module):
    """Two steps of symmetric-normalized diffusion over a dense adjacency."""

    def forward(self, a, x):
        a = (a > 1.5).float() + torch.eye(a.shape[0], device=a.device)
        d = a.sum(-1).rsqrt()
        an = d[:, None] * a * d[None, :]
        return an @ (an @ x)


class ClipGradNorm(nn.Module):
    """Gradient clipping by the global norm of several tensors."""

    def forward(self, *gs):
        total = torch.sqrt(sum((g * g).sum() for g in gs))
        coef = torch.clamp(1.0 / (total + 1e-6), max=1.0)
        return [g * coef for g in gs]


class Mixup(nn.Module):
    def forward(self, x, y):
        lam = 0.7
        return lam * x + (1 - lam) * x.flip(0), lam * y + (1 - lam) * y.flip(0)


class RopeInterleaved(nn.Module):
    """GPT-J's rotary: even / odd lanes rotated, interleaved back by stack + flatten."""

    def __init__(self, s, d):
        super().__init__()
        inv = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
        t = torch.outer(torch.arange(s).float(), inv)
        self.register_buffer("cos", t.cos())
        self.register_buffer("sin", t.sin())

    def forward(self, x):
        x1, x2 = x[..., ::2], x[..., 1::2]
        return torch.stack([x1 * self.cos - x2 * self.sin, x1 * self.sin + x2 * self.cos], -1).flatten(-2)


class MixerTokens(nn.Module):
    """MLP-Mixer's token-mixing MLP with odd sizes: LayerNorm, transpose, MLP over tokens."""

    def __init__(self, tokens, c, h):
        super().__init__()
        self.ln, self.f1, self.f2 = nn.LayerNorm(c), nn.Linear(tokens, h), nn.Linear(h, tokens)

    def forward(self, x):
        y = self.ln(x).transpose(1, 2)
        return x + self.f2(F.gelu(self.f1(y))).transpose(1, 2)


class SepConv1d(nn.Module):
    """A depthwise-separable 1-D conv stack (QuartzNet-style), BN folded (eval), ReLU."""

    def __init__(self, c, k):
        super().__init__()
        self.layers = nn.ModuleList(
            nn.Sequential(nn.Conv1d(c, c, k, padding=k // 2, groups=c), nn.Conv1d(c, c, 1), nn.BatchNorm1d(c), nn.ReLU())
            for _ in range(3))  # fmt: skip

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class FPNTopDown(nn.Module):
    """FPN's top-down merge: lateral 1x1 convs, upsample-and-add, 3x3 smoothing."""

    def __init__(self, cs, c=128):
        super().__init__()
        self.lat = nn.ModuleList(nn.Conv2d(ci, c, 1) for ci in cs)
        self.smooth = nn.Conv2d(c, c, 3, padding=1)

    def forward(self, c3, c4, c5):
        p5 = self.lat[2](c5)
        p4 = self.lat[1](c4) + F.interpolate(p5, scale_factor=2, mode="nearest")
        p3 = self.lat[0](c3) + F.interpolate(p4, scale_factor=2, mode="nearest")
        return self.smooth(p3)


class CosinePairs(nn.Module):
    """A cosine-embedding loss over pairs (F.cosine_similarity with a margin)."""

    def forward(self, a, b, y):
        cos = F.cosine_similarity(a, b, dim=-1)
        return torch.where(y > 0, 1 - cos, F.relu(cos - 0.2)).mean()


class Highway(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.h, self.t = nn.Linear(d, d), nn.Linear(d, d)

    def forward(self, x):
        t = torch.sigmoid(self.t(x))
        return t * F.relu(self.h(x)) + (1 - t) * x


class TemporalPool(nn.Module):
    """A video head: mean and max over time concatenated, then a classifier."""

    def __init__(self, c, n):
        super().__init__()
        self.fc = nn.Linear(2 * c, n)

    def forward(self, x):
        return self.fc(torch.cat([x.mean(1), x.amax(1)], -1))


CASES = [
    S("preprocess_aa_16x3x512x512to224", "vision", lambda: Preprocess(), ((16, 3, 512, 512),)),
    S("frames_64x16000w400h160", "audio", lambda: Frames(), ((64, 16000),)),
    S("sim_maskdiag_2048x256", "mlp", lambda: SimMaskDiag(), ((2048, 256),)),
    S("lenet_256x1x28x28", "vision", lambda: LeNet(), ((256, 1, 28, 28),)),
    S("modconv_4x256x64x64", "vision", lambda: ModConv(256), ((4, 256, 64, 64), (4, 512))),
    S("film_16x128x32x32", "vision", lambda: FiLM(128, 256), ((16, 128, 32, 32), (16, 256))),
    S("swin_relbias_1024x3x49x32", "attention", lambda: SwinRelBias(), ((1024, 3, 49, 32),) * 3),
    S("rigid_256x4096x3", "vision", lambda: RigidTransform(), ((256, 4096, 3), (256, 3, 3), (256, 3))),
    S("mlm_head_2048x768v30522", "nlp", lambda: MLMHead(), ((2048, 768),)),
    S("normal_logprob_262144x8", "mlp", lambda: NormalLogProb(), ((262144, 8),) * 3),
    S("bifpn_fuse_8x64x128x128", "vision", lambda: BiFPNFuse(64), ((8, 64, 128, 128), (8, 64, 64, 64))),
    S("soft_argmax_32x17x64x48", "vision", lambda: SoftArgmax(), ((32, 17, 64, 48),)),
    S("nonlocal_8x256x32x32", "vision", lambda: NonLocal(256), ((8, 256, 32, 32),)),
    S("graph_diffuse_4096x4096x64", "graph", lambda: GraphDiffuse(), ((4096, 4096), (4096, 64))),
    S("clip_grad_4tensors", "mlp", lambda: ClipGradNorm(), ((4096, 1024), (1024,), (1024, 4096), (4096,))),
    S("mixup_256x3x224x224", "vision", lambda: Mixup(), ((256, 3, 224, 224), (256, 1000))),
    S("rope_interleaved_4x16x2048x64", "attention", lambda: RopeInterleaved(2048, 64), ((4, 16, 2048, 64),)),
    S("mixer_tokens_64x196x512h384", "mlp", lambda: MixerTokens(196, 512, 384), ((64, 196, 512),)),
    S("sepconv1d_16x256x2000k33", "audio", lambda: SepConv1d(256, 33), ((16, 256, 2000),)),
    S("fpn_topdown_4x256x64x64", "vision", lambda: FPNTopDown((256, 512, 1024)),
      ((4, 256, 64, 64), (4, 512, 32, 32), (4, 1024, 16, 16))),
    S("cosine_pairs_65536x256", "mlp", lambda: CosinePairs(), ((65536, 256), (65536, 256), (65536,))),
    S("highway_8192x1024", "mlp", lambda: Highway(1024), ((8192, 1024),)),
    S("temporal_pool_64x32x2048c400", "vision", lambda: TemporalPool(2048, 400), ((64, 32, 2048),)),
]
