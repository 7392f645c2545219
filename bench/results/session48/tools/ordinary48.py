"""Session 48: a ninth batch of ordinary programs none of sessions 32-47's sets hold, as a new
user writes them: a Llama decoder block (RMSNorm, rotate-half RoPE, causal SDPA, SwiGLU), ViT's
embedding with a class token and a bicubically resized position table, a diffusion U-Net
ResBlock with its time embedding, YOLOv5's SPPF, GoogLeNet's inception module, a DenseNet block,
a DCGAN generator, wav2vec 2.0's convolutional feature encoder, segmentation cross entropy with
ignore_index=255, a hard Gumbel-softmax with the noise passed in, FixMatch's confidence-masked
pseudo-label loss, MoCo's logits against a queue, prototypical networks' distances, a linear-chain
CRF's forward algorithm, CenterNet's max-pool NMS and top-k decode, Shaw's relative-position
attention, DCN-v2's cross network, RAFT's all-pairs correlation pyramid, GwcNet's group-wise
correlation cost volume, axial attention by einsum, Linformer, Performer's FAVOR+ features,
speculative decoding's acceptance test and residual distribution, and prefix-LM attention with a
triu mask, as sweep cases.

    from ordinary48 import CASES"""
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


class RMSNorm(nn.Module):
    def __init__(self, d, eps=1e-6):
        super().__init__()
        self.weight, self.eps = nn.Parameter(torch.ones(d)), eps

    def forward(self, x):
        return self.weight * (x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps))


def rotate_half(x):
    x1, x2 = x.chunk(2, dim=-1)
    return torch.cat((-x2, x1), dim=-1)


class LlamaBlock(nn.Module):
    """A Llama decoder layer: RMSNorm, q/k/v, rotate-half RoPE, causal SDPA, o-proj, RMSNorm,
    SwiGLU MLP, both residuals."""

    def __init__(self, s, d=1024, heads=8, hidden=2816):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.n1, self.n2 = RMSNorm(d), RMSNorm(d)
        self.wq, self.wk, self.wv, self.wo = (nn.Linear(d, d, bias=False) for _ in range(4))
        self.w1, self.w3 = nn.Linear(d, hidden, bias=False), nn.Linear(d, hidden, bias=False)
        self.w2 = nn.Linear(hidden, d, bias=False)
        inv = 1.0 / (10000 ** (torch.arange(0, self.hd, 2).float() / self.hd))
        freqs = torch.outer(torch.arange(s).float(), inv)
        emb = torch.cat((freqs, freqs), dim=-1)
        self.register_buffer("cos", emb.cos())
        self.register_buffer("sin", emb.sin())

    def forward(self, x):
        b, s, d = x.shape
        h = self.n1(x)
        q = self.wq(h).view(b, s, self.h, self.hd).transpose(1, 2)
        k = self.wk(h).view(b, s, self.h, self.hd).transpose(1, 2)
        v = self.wv(h).view(b, s, self.h, self.hd).transpose(1, 2)
        q = q * self.cos + rotate_half(q) * self.sin
        k = k * self.cos + rotate_half(k) * self.sin
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x = x + self.wo(a.transpose(1, 2).reshape(b, s, d))
        h = self.n2(x)
        return x + self.w2(F.silu(self.w1(h)) * self.w3(h))


class ViTEmbed(nn.Module):
    """ViT-B/16 at 384 px from a 224 px checkpoint: patches, class token, the 14x14 position table
    resized bicubically to 24x24, then the first block's LayerNorm."""

    def __init__(self, d=768, grid=14):
        super().__init__()
        self.proj = nn.Conv2d(3, d, 16, stride=16)
        self.cls_token = nn.Parameter(torch.zeros(1, 1, d))
        self.pos_embed = nn.Parameter(torch.zeros(1, 1 + grid * grid, d))
        self.ln, self.grid = nn.LayerNorm(d), grid

    def forward(self, x):
        b = x.shape[0]
        p = self.proj(x).flatten(2).transpose(1, 2)
        g = int(math.sqrt(p.shape[1]))
        pos_cls, pos_grid = self.pos_embed[:, :1], self.pos_embed[:, 1:]
        pos_grid = pos_grid.reshape(1, self.grid, self.grid, -1).permute(0, 3, 1, 2)
        pos_grid = F.interpolate(pos_grid, size=(g, g), mode="bicubic", align_corners=False)
        pos_grid = pos_grid.permute(0, 2, 3, 1).reshape(1, g * g, -1)
        x = torch.cat([self.cls_token.expand(b, -1, -1), p], dim=1) + torch.cat([pos_cls, pos_grid], dim=1)
        return self.ln(x)


class UNetResBlock(nn.Module):
    """Stable Diffusion's ResnetBlock2D: GroupNorm + SiLU + conv, plus the projected time
    embedding, GroupNorm + SiLU + conv, 1x1 skip when the width changes."""

    def __init__(self, cin, cout, tdim=1280):
        super().__init__()
        self.g1, self.c1 = nn.GroupNorm(32, cin), nn.Conv2d(cin, cout, 3, padding=1)
        self.temb = nn.Linear(tdim, cout)
        self.g2, self.c2 = nn.GroupNorm(32, cout), nn.Conv2d(cout, cout, 3, padding=1)
        self.skip = nn.Conv2d(cin, cout, 1)

    def forward(self, x, t):
        h = self.c1(F.silu(self.g1(x)))
        h = h + self.temb(F.silu(t))[:, :, None, None]
        h = self.c2(F.silu(self.g2(h)))
        return self.skip(x) + h


class ConvBNSiLU(nn.Sequential):
    def __init__(self, cin, cout, k=1):
        super().__init__(nn.Conv2d(cin, cout, k, padding=k // 2, bias=False), nn.BatchNorm2d(cout), nn.SiLU())


class SPPF(nn.Module):
    """YOLOv5's SPPF: 1x1 conv, three chained 5x5 stride-1 max-pools, concat, 1x1 conv."""

    def __init__(self, c1, c2):
        super().__init__()
        self.cv1, self.cv2 = ConvBNSiLU(c1, c1 // 2), ConvBNSiLU(c1 * 2, c2)
        self.m = nn.MaxPool2d(5, stride=1, padding=2)

    def forward(self, x):
        x = self.cv1(x)
        y1 = self.m(x)
        y2 = self.m(y1)
        return self.cv2(torch.cat([x, y1, y2, self.m(y2)], 1))


class Inception(nn.Module):
    """GoogLeNet's inception (3a): 1x1, 1x1->3x3, 1x1->5x5 and pool->1x1 branches concatenated."""

    def __init__(self, cin=192):
        super().__init__()
        self.b1 = nn.Conv2d(cin, 64, 1)
        self.b2 = nn.Sequential(nn.Conv2d(cin, 96, 1), nn.ReLU(), nn.Conv2d(96, 128, 3, padding=1))
        self.b3 = nn.Sequential(nn.Conv2d(cin, 16, 1), nn.ReLU(), nn.Conv2d(16, 32, 5, padding=2))
        self.b4 = nn.Sequential(nn.MaxPool2d(3, stride=1, padding=1), nn.Conv2d(cin, 32, 1))

    def forward(self, x):
        return F.relu(torch.cat([self.b1(x), self.b2(x), self.b3(x), self.b4(x)], 1))


class DenseBlock(nn.Module):
    """A DenseNet-121 dense block: each layer BN-ReLU-1x1-BN-ReLU-3x3 (growth 32) on the
    concatenation of everything before it."""

    def __init__(self, cin, layers=6, growth=32):
        super().__init__()
        self.layers = nn.ModuleList(
            nn.Sequential(nn.BatchNorm2d(c), nn.ReLU(), nn.Conv2d(c, 4 * growth, 1, bias=False),
                          nn.BatchNorm2d(4 * growth), nn.ReLU(), nn.Conv2d(4 * growth, growth, 3, 1, 1, bias=False))
            for c in (cin + i * growth for i in range(layers)))  # fmt: skip

    def forward(self, x):
        feats = [x]
        for layer in self.layers:
            feats.append(layer(torch.cat(feats, 1)))
        return torch.cat(feats, 1)


class DCGANGen(nn.Module):
    """DCGAN's generator: a 100-d latent through five transposed convolutions to 3x64x64."""

    def __init__(self, nz=100, ngf=64):
        super().__init__()
        self.net = nn.Sequential(
            nn.ConvTranspose2d(nz, ngf * 8, 4, 1, 0, bias=False), nn.BatchNorm2d(ngf * 8), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 8, ngf * 4, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 4), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 4, ngf * 2, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf * 2), nn.ReLU(True),
            nn.ConvTranspose2d(ngf * 2, ngf, 4, 2, 1, bias=False), nn.BatchNorm2d(ngf), nn.ReLU(True),
            nn.ConvTranspose2d(ngf, 3, 4, 2, 1, bias=False), nn.Tanh())  # fmt: skip

    def forward(self, z):
        return self.net(z[:, :, None, None])


class W2VFeatures(nn.Module):
    """wav2vec 2.0's feature encoder: conv(10, stride 5) + GroupNorm(512, 512) + GELU, four
    conv(3, 2) and two conv(2, 2) + GELU, then LayerNorm and the 512->768 projection."""

    def __init__(self, c=512, d=768):
        super().__init__()
        self.conv0, self.norm0 = nn.Conv1d(1, c, 10, stride=5, bias=False), nn.GroupNorm(c, c)
        self.convs = nn.ModuleList([nn.Conv1d(c, c, 3, stride=2, bias=False) for _ in range(4)]
                                   + [nn.Conv1d(c, c, 2, stride=2, bias=False) for _ in range(2)])
        self.ln, self.proj = nn.LayerNorm(c), nn.Linear(c, d)

    def forward(self, wav):
        x = F.gelu(self.norm0(self.conv0(wav[:, None])))
        for conv in self.convs:
            x = F.gelu(conv(x))
        return self.proj(self.ln(x.transpose(1, 2)))


class SegXent(nn.Module):
    """Semantic-segmentation cross entropy over 19 Cityscapes classes, void pixels (255) ignored."""

    def __init__(self, b, c, h, w):
        super().__init__()
        t = torch.randint(0, c, (b, h, w), generator=_gen(1))
        void = torch.rand((b, h, w), generator=_gen(2)) < 0.05
        self.register_buffer("target", torch.where(void, torch.full_like(t, 255), t))

    def forward(self, logits):
        return F.cross_entropy(logits, self.target, ignore_index=255)


class GumbelHard(nn.Module):
    """Straight-through Gumbel-softmax with the uniform noise passed in (as a logit)."""

    def forward(self, logits, noise):
        u = torch.sigmoid(noise).clamp(1e-6, 1 - 1e-6)
        g = -torch.log(-torch.log(u))
        y = F.softmax((logits + g) / 0.5, dim=-1)
        idx = y.argmax(dim=-1, keepdim=True)
        hard = torch.zeros_like(y).scatter_(-1, idx, 1.0)
        return hard - y.detach() + y


class FixMatch(nn.Module):
    """FixMatch's unlabeled loss: pseudo-labels from the weak view where it is confident."""

    def forward(self, weak, strong):
        probs = torch.softmax(weak.detach(), dim=-1)
        conf, pseudo = torch.max(probs, dim=-1)
        mask = conf.ge(0.95).float()
        return (F.cross_entropy(strong, pseudo, reduction="none") * mask).mean()


class MoCoLogits(nn.Module):
    """MoCo v2's InfoNCE: the positive key against a queue of 65536 negatives, temperature 0.07."""

    def __init__(self, d=128, k=65536):
        super().__init__()
        self.register_buffer("queue", F.normalize(torch.randn(d, k, generator=_gen(3)), dim=0))

    def forward(self, q, k):
        q, k = F.normalize(q, dim=1), F.normalize(k, dim=1)
        l_pos = torch.einsum("nc,nc->n", q, k).unsqueeze(-1)
        l_neg = torch.einsum("nc,ck->nk", q, self.queue)
        logits = torch.cat([l_pos, l_neg], dim=1) / 0.07
        labels = torch.zeros(logits.shape[0], dtype=torch.long, device=logits.device)
        return F.cross_entropy(logits, labels)


class ProtoNet(nn.Module):
    """Prototypical networks: class prototypes as support means, queries scored by negative
    squared Euclidean distance (written with expand, as the paper's code does)."""

    def forward(self, support, query):
        protos = support.mean(1)
        n, m, d = query.shape[0], protos.shape[0], query.shape[1]
        dist = torch.pow(query.unsqueeze(1).expand(n, m, d) - protos.unsqueeze(0).expand(n, m, d), 2).sum(2)
        return F.log_softmax(-dist, dim=1)


class CRFForward(nn.Module):
    """A linear-chain CRF's log-partition (forward algorithm) over emissions, step by step."""

    def __init__(self, tags):
        super().__init__()
        self.transitions = nn.Parameter(torch.empty(tags, tags))
        self.start = nn.Parameter(torch.empty(tags))
        self.end = nn.Parameter(torch.empty(tags))

    def forward(self, em):
        alpha = self.start + em[:, 0]
        for t in range(1, em.shape[1]):
            alpha = torch.logsumexp(alpha.unsqueeze(2) + self.transitions.unsqueeze(0), dim=1) + em[:, t]
        return torch.logsumexp(alpha + self.end, dim=1)


class CenterNetDecode(nn.Module):
    """CenterNet's decode: sigmoid heatmaps, 3x3 max-pool NMS, top 100 over classes and pixels,
    box size and offset gathered at the peaks."""

    def forward(self, heat, wh, reg):
        heat = heat.sigmoid()
        hmax = F.max_pool2d(heat, 3, stride=1, padding=1)
        heat = heat * (hmax == heat).float()
        b, c, h, w = heat.shape
        scores, inds = heat.view(b, -1).topk(100)
        cls = torch.div(inds, h * w, rounding_mode="floor")
        pix = inds % (h * w)
        ys, xs = torch.div(pix, w, rounding_mode="floor").float(), (pix % w).float()
        idx = pix.unsqueeze(1).expand(-1, 2, -1)
        size, off = wh.flatten(2).gather(2, idx), reg.flatten(2).gather(2, idx)
        cx, cy = xs + off[:, 0], ys + off[:, 1]
        boxes = torch.stack([cx - size[:, 0] / 2, cy - size[:, 1] / 2, cx + size[:, 0] / 2, cy + size[:, 1] / 2], -1)
        return boxes, scores, cls.float()


class ShawRelPos(nn.Module):
    """Self-attention with relative position representations (Shaw et al.): clipped relative
    distances index learned key and value embeddings."""

    def __init__(self, s, hd=64, clip=32):
        super().__init__()
        self.rel_k = nn.Parameter(torch.empty(2 * clip + 1, hd))
        self.rel_v = nn.Parameter(torch.empty(2 * clip + 1, hd))
        r = torch.arange(s)
        self.register_buffer("idx", (r[None, :] - r[:, None]).clamp(-clip, clip) + clip)

    def forward(self, q, k, v):
        rk, rv = self.rel_k[self.idx], self.rel_v[self.idx]
        logits = (q @ k.transpose(-2, -1) + torch.einsum("bhqd,qkd->bhqk", q, rk)) / math.sqrt(q.shape[-1])
        a = logits.softmax(-1)
        return a @ v + torch.einsum("bhqk,qkd->bhqd", a, rv)


class DCNv2(nn.Module):
    """DCN-v2's cross network (x_{l+1} = x0 * (W x_l + b) + x_l, three layers) stacked on a deep
    tower, then a click-through logit."""

    def __init__(self, d, layers=3):
        super().__init__()
        self.cross = nn.ModuleList(nn.Linear(d, d) for _ in range(layers))
        self.deep = nn.Sequential(nn.Linear(d, 1024), nn.ReLU(), nn.Linear(1024, 512), nn.ReLU())
        self.out = nn.Linear(512, 1)

    def forward(self, x0):
        x = x0
        for layer in self.cross:
            x = x0 * layer(x) + x
        return torch.sigmoid(self.out(self.deep(x))).squeeze(-1)


class RAFTCorr(nn.Module):
    """RAFT's all-pairs correlation volume and its 4-level average-pooled pyramid."""

    def forward(self, f1, f2):
        b, d, h, w = f1.shape
        corr = torch.matmul(f1.view(b, d, h * w).transpose(1, 2), f2.view(b, d, h * w)) / math.sqrt(d)
        corr = corr.reshape(b * h * w, 1, h, w)
        pyramid = [corr]
        for _ in range(3):
            corr = F.avg_pool2d(corr, 2, stride=2)
            pyramid.append(corr)
        return pyramid


class GwcVolume(nn.Module):
    """GwcNet's group-wise correlation cost volume over 48 disparities (slice assignment)."""

    def __init__(self, groups=40, maxdisp=48):
        super().__init__()
        self.g, self.d = groups, maxdisp

    def forward(self, left, right):
        b, c, h, w = left.shape
        cpg = c // self.g
        vol = left.new_zeros(b, self.g, self.d, h, w)
        for i in range(self.d):
            if i > 0:
                vol[:, :, i, :, i:] = (left[:, :, :, i:] * right[:, :, :, :-i]).view(b, self.g, cpg, h, w - i).mean(2)
            else:
                vol[:, :, i] = (left * right).view(b, self.g, cpg, h, w).mean(2)
        return vol


class AxialAttn(nn.Module):
    """Axial attention over a channels-last feature map: heads attend along rows, then along
    columns (einsum), summed and projected."""

    def __init__(self, c, heads=8):
        super().__init__()
        self.h = heads
        self.qkv, self.proj = nn.Linear(c, 3 * c), nn.Linear(c, c)

    def forward(self, x):
        b, hh, ww, c = x.shape
        q, k, v = self.qkv(x).view(b, hh, ww, 3, self.h, c // self.h).unbind(3)
        scale = (c // self.h) ** -0.5
        a = torch.einsum("byxnd,byznd->bynxz", q, k).mul(scale).softmax(-1)
        rows = torch.einsum("bynxz,byznd->byxnd", a, v)
        a = torch.einsum("byxnd,bzxnd->bxnyz", q, k).mul(scale).softmax(-1)
        cols = torch.einsum("bxnyz,bzxnd->byxnd", a, v)
        return self.proj((rows + cols).reshape(b, hh, ww, c))


class Linformer(nn.Module):
    """Linformer self-attention: keys and values projected along the sequence (4096 -> 256)."""

    def __init__(self, n, d, heads=8, k=256):
        super().__init__()
        self.h = heads
        self.qkv, self.out = nn.Linear(d, 3 * d), nn.Linear(d, d)
        self.E, self.F = nn.Linear(n, k, bias=False), nn.Linear(n, k, bias=False)

    def forward(self, x):
        b, n, d = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        k = self.E(k.transpose(1, 2)).transpose(1, 2)
        v = self.F(v.transpose(1, 2)).transpose(1, 2)
        q = q.view(b, n, self.h, -1).transpose(1, 2)
        k = k.reshape(b, -1, self.h, d // self.h).transpose(1, 2)
        v = v.reshape(b, -1, self.h, d // self.h).transpose(1, 2)
        a = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d // self.h), dim=-1)
        return self.out((a @ v).transpose(1, 2).reshape(b, n, d))


class Performer(nn.Module):
    """Performer's FAVOR+ attention with positive random features (a fixed projection), the
    query stabilised per row and the key over everything."""

    def __init__(self, hd=64, m=256):
        super().__init__()
        self.register_buffer("proj", torch.randn(m, hd, generator=_gen(4)))
        self.m = m

    def _features(self, x, per_row):
        x = x * x.shape[-1] ** -0.25
        wx = x @ self.proj.t()
        sq = x.pow(2).sum(-1, keepdim=True) / 2
        mx = wx.amax(-1, keepdim=True) if per_row else wx.amax()
        return torch.exp(wx - sq - mx) / math.sqrt(self.m) + 1e-6

    def forward(self, q, k, v):
        qp, kp = self._features(q, True), self._features(k, False)
        kv = torch.einsum("bhnm,bhnd->bhmd", kp, v)
        z = 1.0 / torch.einsum("bhnm,bhm->bhn", qp, kp.sum(2))
        return torch.einsum("bhnm,bhmd->bhnd", qp, kv) * z.unsqueeze(-1)


class SpecAccept(nn.Module):
    """Speculative decoding's check of 4 greedy draft tokens per sequence: accept where
    u < p/q, and the residual distribution max(p - q, 0) renormalised to resample from."""

    def forward(self, target_logits, draft_logits, noise):
        p = torch.softmax(target_logits / 0.8, dim=-1)
        q = torch.softmax(draft_logits, dim=-1)
        tok = q.argmax(-1, keepdim=True)
        ratio = (p.gather(-1, tok) / q.gather(-1, tok)).squeeze(-1)
        accept = torch.sigmoid(noise) < ratio.clamp(max=1.0)
        resid = (p - q).clamp(min=0)
        resid = resid / resid.sum(-1, keepdim=True).clamp(min=1e-20)
        return accept.float(), resid


class PrefixLMAttn(nn.Module):
    """Prefix-LM attention: bidirectional over each sample's prefix, causal after it, the mask
    from torch.triu and per-sample prefix lengths, applied with masked_fill."""

    def __init__(self, b, s):
        super().__init__()
        self.register_buffer("prefix", torch.randint(s // 8, s // 2, (b,), generator=_gen(5)))

    def forward(self, q, k, v):
        s = q.shape[2]
        future = torch.triu(torch.ones(s, s, dtype=torch.bool, device=q.device), diagonal=1)
        in_prefix = torch.arange(s, device=q.device)[None, None, :] < self.prefix[:, None, None]
        blocked = future[None] & ~in_prefix
        scores = (q @ k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
        scores = scores.masked_fill(blocked[:, None], float("-inf"))
        return torch.softmax(scores, dim=-1) @ v


CASES = [
    S("llama_block_2x512x1024h8", "nlp", lambda: LlamaBlock(512), ((2, 512, 1024),)),
    S("vit_embed_cls_pos_8x3x384x384", "vision", lambda: ViTEmbed(), ((8, 3, 384, 384),)),
    S("unet_resblock_4x256x64x64to320", "vision", lambda: UNetResBlock(256, 320), ((4, 256, 64, 64), (4, 1280))),
    S("sppf_8x512x20x20", "vision", lambda: SPPF(512, 512), ((8, 512, 20, 20),)),
    S("inception3a_16x192x28x28", "vision", lambda: Inception(), ((16, 192, 28, 28),)),
    S("dense_block_8x64x56x56l6", "vision", lambda: DenseBlock(64), ((8, 64, 56, 56),)),
    S("dcgan_gen_128x100", "vision", lambda: DCGANGen(), ((128, 100),)),
    S("w2v_features_4x32000", "audio", lambda: W2VFeatures(), ((4, 32000),)),
    S("seg_xent_8x19x512x512", "loss", lambda: SegXent(8, 19, 512, 512), ((8, 19, 512, 512),)),
    S("gumbel_hard_4096x1000", "mlp", lambda: GumbelHard(), ((4096, 1000), (4096, 1000))),
    S("fixmatch_4096x1000", "loss", lambda: FixMatch(), ((4096, 1000), (4096, 1000))),
    S("moco_logits_256x128q65536", "loss", lambda: MoCoLogits(), ((256, 128), (256, 128))),
    S("protonet_4096q64c5s512", "mlp", lambda: ProtoNet(), ((64, 5, 512), (4096, 512))),
    S("crf_forward_512x64t32", "scan", lambda: CRFForward(32), ((512, 64, 32),)),
    S("centernet_decode_16x80x128x128", "vision", lambda: CenterNetDecode(),
      ((16, 80, 128, 128), (16, 2, 128, 128), (16, 2, 128, 128))),
    S("shaw_relpos_8x8x256x64", "attention", lambda: ShawRelPos(256), ((8, 8, 256, 64),) * 3),
    S("dcn_v2_4096x512l3", "mlp", lambda: DCNv2(512), ((4096, 512),)),
    S("raft_corr_4x256x46x62", "vision", lambda: RAFTCorr(), ((4, 256, 46, 62),) * 2),
    S("gwc_volume_2x320x64x128d48", "vision", lambda: GwcVolume(), ((2, 320, 64, 128),) * 2),
    S("axial_attn_4x64x64x256h8", "attention", lambda: AxialAttn(256), ((4, 64, 64, 256),)),
    S("linformer_8x4096x512k256", "attention", lambda: Linformer(4096, 512), ((8, 4096, 512),)),
    S("performer_4x8x4096x64m256", "attention", lambda: Performer(), ((4, 8, 4096, 64),) * 3),
    S("spec_accept_64x4x32000", "nlp", lambda: SpecAccept(), ((64, 4, 32000), (64, 4, 32000), (64, 4))),
    S("prefixlm_attn_4x12x512x64", "attention", lambda: PrefixLMAttn(4, 512), ((4, 12, 512, 64),) * 3),
]
