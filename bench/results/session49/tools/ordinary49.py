"""Session 49: a tenth batch of ordinary programs none of sessions 32-48's sets hold, as a new
user writes them: a GPT-2 block (Conv1D projections by addmm, causal attention by hand with
masked_fill, GELU-tanh MLP), a ConvNeXt-V2 block (7x7 depthwise, channels-last LayerNorm, GRN),
EfficientNet-V2's Fused-MBConv, Mamba-2's SSD in its quadratic form (segment sums by cumsum and
exp), DGCNN's EdgeConv (k nearest neighbours by topk of -cdist, gathered edge features, max over
k), DETR's matching cost matrix (class probability, L1 by cdist, pairwise GIoU), BYOL's loss
(predictor with BatchNorm, normalized, stop-grad, both views), NeRF's volume rendering
(transmittance by an exclusive cumprod), a LoRA linear, cross entropy with class weights and
label smoothing, R(2+1)D's factored 3-D convolution, CTC loss, Stable Diffusion's VAE attention
block (GroupNorm, one head over 64x64 positions), PPO's clipped loss with GAE by a reverse
Python loop, skip-gram with negative sampling, an RNN-T joint network, ConvS2S's GLU
convolutions, Hyena's long convolution by rfft, sparsemax, SupCon's supervised contrastive loss,
Differential attention, DeepSeek's multi-head latent attention with a decoupled RoPE key, a KAN
layer (B-spline bases by Cox-de Boor), RGB to HSV, and MAML's Conv-4 backbone (BatchNorm
without running statistics), as sweep cases.

Each module takes its sizes, so `check49.py` builds the same programs small.

    from ordinary49 import CASES"""
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


class Conv1D(nn.Module):
    """GPT-2's Conv1D: x @ W + b with W stored (in, out), by addmm."""

    def __init__(self, nin, nout):
        super().__init__()
        self.weight, self.bias = nn.Parameter(torch.empty(nin, nout)), nn.Parameter(torch.zeros(nout))

    def forward(self, x):
        shape = x.shape[:-1] + (self.weight.shape[1],)
        return torch.addmm(self.bias, x.view(-1, x.shape[-1]), self.weight).view(shape)


class GPT2Block(nn.Module):
    """A GPT-2 block as Hugging Face's eager path writes it: ln_1, c_attn split into q, k, v,
    scores / sqrt(d) masked by a tril bias with masked_fill(min float), softmax, c_proj, ln_2,
    MLP with GELU-tanh."""

    def __init__(self, s, d=768, heads=12):
        super().__init__()
        self.h, self.hd = heads, d // heads
        self.ln_1, self.ln_2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.c_attn, self.c_proj = Conv1D(d, 3 * d), Conv1D(d, d)
        self.c_fc, self.mlp_proj = Conv1D(d, 4 * d), Conv1D(4 * d, d)
        self.register_buffer("bias", torch.tril(torch.ones(s, s, dtype=torch.bool)).view(1, 1, s, s))

    def forward(self, x):
        b, s, d = x.shape
        q, k, v = self.c_attn(self.ln_1(x)).split(d, dim=2)
        q, k, v = (t.view(b, s, self.h, self.hd).transpose(1, 2) for t in (q, k, v))
        w = torch.matmul(q, k.transpose(-1, -2)) / math.sqrt(self.hd)
        w = w.masked_fill(~self.bias[:, :, :s, :s], torch.finfo(w.dtype).min)
        a = torch.matmul(F.softmax(w, dim=-1), v).transpose(1, 2).reshape(b, s, d)
        x = x + self.c_proj(a)
        return x + self.mlp_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GRN(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.gamma, self.beta = nn.Parameter(torch.zeros(1, 1, 1, d)), nn.Parameter(torch.zeros(1, 1, 1, d))

    def forward(self, x):
        gx = torch.norm(x, p=2, dim=(1, 2), keepdim=True)
        nx = gx / (gx.mean(dim=-1, keepdim=True) + 1e-6)
        return self.gamma * (x * nx) + self.beta + x


class ConvNeXtV2Block(nn.Module):
    """dwconv 7x7, permute to channels-last, LayerNorm, 4x pointwise, GELU, GRN, pointwise,
    permute back, residual."""

    def __init__(self, d):
        super().__init__()
        self.dw = nn.Conv2d(d, d, 7, padding=3, groups=d)
        self.norm = nn.LayerNorm(d, eps=1e-6)
        self.pw1, self.pw2 = nn.Linear(d, 4 * d), nn.Linear(4 * d, d)
        self.grn = GRN(4 * d)

    def forward(self, x):
        h = self.dw(x).permute(0, 2, 3, 1)
        h = self.pw2(self.grn(F.gelu(self.pw1(self.norm(h)))))
        return x + h.permute(0, 3, 1, 2)


class FusedMBConv(nn.Module):
    """EfficientNet-V2's Fused-MBConv, expansion 4: 3x3 conv + BN + SiLU, 1x1 conv + BN,
    residual."""

    def __init__(self, c, e=4):
        super().__init__()
        self.expand = nn.Sequential(nn.Conv2d(c, c * e, 3, padding=1, bias=False), nn.BatchNorm2d(c * e), nn.SiLU())
        self.project = nn.Sequential(nn.Conv2d(c * e, c, 1, bias=False), nn.BatchNorm2d(c))

    def forward(self, x):
        return x + self.project(self.expand(x))


def segsum(x):
    """Mamba-2's stable segment sum: out[..., i, j] = sum x[..., j+1 : i+1] for j <= i, -inf above."""
    t = x.size(-1)
    x = x[..., None].repeat(*([1] * x.dim()), t)
    mask = torch.tril(torch.ones(t, t, dtype=torch.bool, device=x.device), diagonal=-1)
    x = x.masked_fill(~mask, 0)
    s = torch.cumsum(x, dim=-2)
    mask = torch.tril(torch.ones(t, t, dtype=torch.bool, device=x.device), diagonal=0)
    return s.masked_fill(~mask, -torch.inf)


class Mamba2SSD(nn.Module):
    """Mamba-2's SSD in its quadratic (attention-like) form over one chunk: A per head, dt by
    softplus, L = exp(segsum(A dt)), y = ((C B^T) * L) (x dt) + D x."""

    def __init__(self, heads):
        super().__init__()
        self.A_log = nn.Parameter(torch.empty(heads))
        self.D = nn.Parameter(torch.empty(heads))
        self.dt_bias = nn.Parameter(torch.empty(heads))

    def forward(self, x, dt, B, C):  # x (b, l, h, p), dt (b, l, h), B, C (b, l, n)
        A = -torch.exp(self.A_log)
        dt = F.softplus(dt + self.dt_bias)
        L = torch.exp(segsum((A * dt).transpose(1, 2)))  # (b, h, l, l)
        scores = torch.einsum("bln,bsn->bls", C, B)
        y = torch.einsum("bls,bhls,bshp->blhp", scores, L, x * dt[..., None])
        return y + x * self.D[:, None]


class EdgeConv(nn.Module):
    """DGCNN's EdgeConv: k nearest neighbours in feature space (topk of -cdist), edge features
    (x_j - x_i, x_i), 1x1 conv + BN + LeakyReLU, max over the k."""

    def __init__(self, c, cout, k):
        super().__init__()
        self.k = k
        self.conv = nn.Sequential(nn.Conv2d(2 * c, cout, 1, bias=False), nn.BatchNorm2d(cout), nn.LeakyReLU(0.2))

    def forward(self, x):  # (b, c, n)
        b, c, n = x.shape
        pts = x.transpose(1, 2)
        idx = (-torch.cdist(pts, pts)).topk(self.k, dim=-1).indices  # (b, n, k)
        nb = torch.gather(pts[:, None].expand(b, n, n, c), 2, idx[..., None].expand(b, n, self.k, c))
        ctr = pts[:, :, None].expand(b, n, self.k, c)
        e = torch.cat((nb - ctr, ctr), dim=-1).permute(0, 3, 1, 2)
        return self.conv(e).amax(dim=-1)


def box_cxcywh_to_xyxy(x):
    cx, cy, w, h = x.unbind(-1)
    return torch.stack((cx - 0.5 * w, cy - 0.5 * h, cx + 0.5 * w, cy + 0.5 * h), dim=-1)


def generalized_box_iou(a, b):
    area_a = (a[:, 2] - a[:, 0]) * (a[:, 3] - a[:, 1])
    area_b = (b[:, 2] - b[:, 0]) * (b[:, 3] - b[:, 1])
    lt = torch.max(a[:, None, :2], b[:, :2])
    rb = torch.min(a[:, None, 2:], b[:, 2:])
    wh = (rb - lt).clamp(min=0)
    inter = wh[..., 0] * wh[..., 1]
    union = area_a[:, None] + area_b - inter
    iou = inter / union
    lt2 = torch.min(a[:, None, :2], b[:, :2])
    rb2 = torch.max(a[:, None, 2:], b[:, 2:])
    wh2 = (rb2 - lt2).clamp(min=0)
    area = wh2[..., 0] * wh2[..., 1]
    return iou - (area - union) / area


class DETRCost(nn.Module):
    """DETR's HungarianMatcher cost matrix (before the assignment): -prob of the target class,
    5 x L1 of the boxes (cdist p=1), -2 x GIoU, over the batch's queries and all targets."""

    def __init__(self, ntgt, classes):
        super().__init__()
        self.register_buffer("tgt_ids", torch.randint(0, classes, (ntgt,), generator=_gen(3)))
        t = torch.rand(ntgt, 4, generator=_gen(4))
        self.register_buffer("tgt_boxes", torch.cat((0.2 + 0.6 * t[:, :2], 0.05 + 0.3 * t[:, 2:]), -1))

    def forward(self, logits, boxes):  # (b, q, c + 1), (b, q, 4) raw
        b, q = logits.shape[:2]
        prob = logits.flatten(0, 1).softmax(-1)
        out = torch.sigmoid(boxes.flatten(0, 1))
        cost_class = -prob[:, self.tgt_ids]
        cost_bbox = torch.cdist(out, self.tgt_boxes, p=1)
        cost_giou = -generalized_box_iou(box_cxcywh_to_xyxy(out), box_cxcywh_to_xyxy(self.tgt_boxes))
        return (5 * cost_bbox + cost_class + 2 * cost_giou).view(b, q, -1)


class BYOLLoss(nn.Module):
    """BYOL: the online projections through the predictor (Linear, BN, ReLU, Linear), normalized,
    2 - 2 cos against the detached target projections, both views swapped."""

    def __init__(self, d=256, hidden=4096):
        super().__init__()
        self.pred = nn.Sequential(nn.Linear(d, hidden), nn.BatchNorm1d(hidden), nn.ReLU(), nn.Linear(hidden, d))

    def loss(self, p, z):
        return 2 - 2 * (F.normalize(p, dim=-1) * F.normalize(z.detach(), dim=-1)).sum(-1)

    def forward(self, on1, on2, tg1, tg2):
        return (self.loss(self.pred(on1), tg2) + self.loss(self.pred(on2), tg1)).mean()


class NeRFRender(nn.Module):
    """NeRF's volume rendering of raw (rgb, sigma) samples along rays: deltas (the last 1e10),
    alpha = 1 - exp(-relu(sigma) delta), transmittance by an exclusive cumprod, rgb, depth and
    accumulated opacity."""

    def __init__(self, samples, near=2.0, far=6.0):
        super().__init__()
        self.register_buffer("z", torch.linspace(near, far, samples))

    def forward(self, raw, dirs):  # (r, s, 4), (r, 3)
        z = self.z.expand(raw.shape[0], -1)
        d = torch.cat((z[:, 1:] - z[:, :-1], torch.full_like(z[:, :1], 1e10)), -1)
        d = d * dirs.norm(dim=-1, keepdim=True)
        rgb = torch.sigmoid(raw[..., :3])
        alpha = 1.0 - torch.exp(-F.relu(raw[..., 3]) * d)
        t = torch.cumprod(torch.cat((torch.ones_like(alpha[:, :1]), 1.0 - alpha + 1e-10), -1), -1)[:, :-1]
        w = alpha * t
        rgb_map = (w[..., None] * rgb).sum(-2)
        depth = (w * z).sum(-1)
        acc = w.sum(-1)
        return torch.cat((rgb_map, depth[:, None], acc[:, None]), -1)


class LoRALinear(nn.Module):
    """A frozen base linear plus alpha / r x B(A(dropout(x))) (dropout off: eval)."""

    def __init__(self, nin, nout, r=16, alpha=32):
        super().__init__()
        self.base = nn.Linear(nin, nout)
        self.lora_A, self.lora_B = nn.Linear(nin, r, bias=False), nn.Linear(r, nout, bias=False)
        self.scale, self.drop = alpha / r, nn.Dropout(0.05)

    def forward(self, x):
        return self.base(x) + self.lora_B(self.lora_A(self.drop(x))) * self.scale


class WeightedLSXent(nn.Module):
    """Cross entropy with per-class weights and label smoothing 0.1 (ImageNet, long-tailed)."""

    def __init__(self, n, c):
        super().__init__()
        self.register_buffer("target", torch.randint(0, c, (n,), generator=_gen(5)))
        self.register_buffer("weight", 0.5 + torch.rand(c, generator=_gen(6)))

    def forward(self, logits):
        return F.cross_entropy(logits, self.target, weight=self.weight, label_smoothing=0.1)


class R2Plus1D(nn.Module):
    """R(2+1)D's block: spatial (1,3,3) conv, BN, ReLU, temporal (3,1,1) conv, BN, ReLU."""

    def __init__(self, cin, cout, mid):
        super().__init__()
        self.s = nn.Sequential(nn.Conv3d(cin, mid, (1, 3, 3), padding=(0, 1, 1), bias=False), nn.BatchNorm3d(mid), nn.ReLU())
        self.t = nn.Sequential(nn.Conv3d(mid, cout, (3, 1, 1), padding=(1, 0, 0), bias=False), nn.BatchNorm3d(cout), nn.ReLU())

    def forward(self, x):
        return self.t(self.s(x))


class CTC(nn.Module):
    """CTC loss of per-frame logits against fixed label sequences (blank 0), lengths fixed."""

    def __init__(self, b, t, u, c):
        super().__init__()
        self.register_buffer("targets", torch.randint(1, c, (b, u), generator=_gen(7)))
        self.register_buffer("in_len", torch.full((b,), t, dtype=torch.long))
        self.register_buffer("tgt_len", torch.randint(u // 2, u + 1, (b,), generator=_gen(8)))

    def forward(self, logits):  # (t, b, c)
        return F.ctc_loss(logits.log_softmax(-1), self.targets, self.in_len, self.tgt_len, blank=0)


class VAEAttnBlock(nn.Module):
    """Stable Diffusion's VAE mid-block attention: GroupNorm(32), 1x1 q/k/v, one head over h*w
    positions by bmm and softmax, 1x1 proj, residual."""

    def __init__(self, c):
        super().__init__()
        self.norm = nn.GroupNorm(32, c, eps=1e-6)
        self.q, self.k, self.v, self.proj = (nn.Conv2d(c, c, 1) for _ in range(4))

    def forward(self, x):
        b, c, h, w = x.shape
        n = self.norm(x)
        q = self.q(n).reshape(b, c, h * w).permute(0, 2, 1)
        k = self.k(n).reshape(b, c, h * w)
        a = torch.softmax(torch.bmm(q, k) * (c ** -0.5), dim=2)
        v = self.v(n).reshape(b, c, h * w)
        o = torch.bmm(v, a.permute(0, 2, 1)).reshape(b, c, h, w)
        return x + self.proj(o)


class PPOGAE(nn.Module):
    """PPO's clipped surrogate with GAE advantages by a reverse loop over T steps, normalized,
    plus the value loss; rewards and dones fixed buffers."""

    def __init__(self, t, n, gamma=0.99, lam=0.95, clip=0.2):
        super().__init__()
        self.register_buffer("rewards", torch.randn(t, n, generator=_gen(9)))
        self.register_buffer("notdone", (torch.rand(t, n, generator=_gen(10)) > 0.02).float())
        self.gamma, self.lam, self.clip = gamma, lam, clip

    def forward(self, values, logp, old_logp):  # (t + 1, n), (t, n), (t, n)
        t = self.rewards.shape[0]
        adv, last = [], torch.zeros_like(values[0])
        for i in reversed(range(t)):
            delta = self.rewards[i] + self.gamma * values[i + 1] * self.notdone[i] - values[i]
            last = delta + self.gamma * self.lam * self.notdone[i] * last
            adv.append(last)
        adv = torch.stack(adv[::-1])
        ret = adv + values[:-1]
        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
        ratio = torch.exp(logp - old_logp)
        pg = -torch.min(ratio * adv, ratio.clamp(1 - self.clip, 1 + self.clip) * adv).mean()
        return pg + 0.5 * (values[:-1] - ret.detach()).pow(2).mean()


class SkipGramNS(nn.Module):
    """word2vec's skip-gram with negative sampling: center and context embeddings, logsigmoid of
    the positive dot product and of the negated negatives' (bmm)."""

    def __init__(self, vocab, d, b, neg):
        super().__init__()
        self.inp, self.out = nn.Embedding(vocab, d), nn.Embedding(vocab, d)
        self.register_buffer("center", torch.randint(0, vocab, (b,), generator=_gen(11)))
        self.register_buffer("ctx", torch.randint(0, vocab, (b,), generator=_gen(12)))
        self.register_buffer("negs", torch.randint(0, vocab, (b, neg), generator=_gen(13)))

    def forward(self, scale):  # (d,): a per-dimension scale (temperature) on the center vectors
        c = self.inp(self.center) * scale
        pos = F.logsigmoid((c * self.out(self.ctx)).sum(-1))
        neg = F.logsigmoid(-torch.bmm(self.out(self.negs), c[:, :, None]).squeeze(-1)).sum(-1)
        return -(pos + neg).mean()


class RNNTJoint(nn.Module):
    """RNN-T's joint network: encoder (b, t, h) and predictor (b, u, h) projected, broadcast
    sum, tanh, vocabulary projection, log_softmax over (b, t, u, v)."""

    def __init__(self, h, j, v):
        super().__init__()
        self.enc, self.pred, self.out = nn.Linear(h, j), nn.Linear(h, j), nn.Linear(j, v)

    def forward(self, enc, pred):
        z = torch.tanh(self.enc(enc)[:, :, None] + self.pred(pred)[:, None])
        return self.out(z).log_softmax(-1)


class ConvS2SEncoder(nn.Module):
    """ConvS2S's encoder layers: conv1d to 2c, GLU over channels, residual scaled by sqrt(0.5)."""

    def __init__(self, c, layers=3, k=3):
        super().__init__()
        self.convs = nn.ModuleList(nn.Conv1d(c, 2 * c, k, padding=k // 2) for _ in range(layers))

    def forward(self, x):  # (b, c, t)
        for conv in self.convs:
            x = (F.glu(conv(x), dim=1) + x) * math.sqrt(0.5)
        return x


class HyenaFFTConv(nn.Module):
    """Hyena's long convolution: an implicit filter (per channel, exponentially decaying), the
    causal convolution by rfft / irfft at 2L, plus the bias term D u, gated."""

    def __init__(self, d, l):
        super().__init__()
        self.k = nn.Parameter(torch.empty(d, l))
        self.D = nn.Parameter(torch.empty(d))
        self.register_buffer("decay", torch.exp(-torch.linspace(0, 4, l)))

    def forward(self, u, gate):  # (b, d, l)
        l = u.shape[-1]
        k = self.k * self.decay
        y = torch.fft.irfft(torch.fft.rfft(u, n=2 * l) * torch.fft.rfft(k, n=2 * l), n=2 * l)[..., :l]
        return (y + u * self.D[:, None]) * torch.sigmoid(gate)


class Sparsemax(nn.Module):
    """Sparsemax over the last dim (Martins & Astudillo): sort, cumulative sums, the support size,
    the threshold tau, clamp(z - tau, 0)."""

    def forward(self, z):
        z = z - z.amax(-1, keepdim=True)
        zs = torch.sort(z, dim=-1, descending=True).values
        k = torch.arange(1, z.shape[-1] + 1, dtype=z.dtype, device=z.device)
        cs = zs.cumsum(-1)
        support = (1 + k * zs) > cs
        ks = support.sum(-1, keepdim=True)
        tau = (cs.gather(-1, ks - 1) - 1) / ks.to(z.dtype)
        return torch.clamp(z - tau, min=0)


class SupCon(nn.Module):
    """Supervised contrastive loss (Khosla et al.) over two views: cosine logits / 0.07, the
    self-pair masked out, positives from equal labels, mean log-probability of the positives."""

    def __init__(self, b, classes, t=0.07):
        super().__init__()
        labels = torch.randint(0, classes, (b,), generator=_gen(14)).repeat(2)
        self.register_buffer("labels", labels)
        self.t = t

    def forward(self, f1, f2):
        f = F.normalize(torch.cat((f1, f2)), dim=-1)
        logits = f @ f.T / self.t
        logits = logits - logits.amax(-1, keepdim=True).detach()
        n = f.shape[0]
        self_mask = ~torch.eye(n, dtype=torch.bool, device=f.device)
        pos = (self.labels[:, None] == self.labels[None]) & self_mask
        exp = torch.exp(logits) * self_mask
        logp = logits - torch.log(exp.sum(-1, keepdim=True))
        return -((pos * logp).sum(-1) / pos.sum(-1).clamp(min=1)).mean()


class DiffAttn(nn.Module):
    """Differential attention (DIFF Transformer): two softmax maps from split q, k, their
    difference weighted by lambda = exp(lq1.lk1) - exp(lq2.lk2) + lambda_init, RMS-normed
    heads scaled by (1 - lambda_init)."""

    def __init__(self, hd=64, lambda_init=0.8):
        super().__init__()
        self.lq1, self.lk1, self.lq2, self.lk2 = (nn.Parameter(torch.empty(hd // 2)) for _ in range(4))
        self.li = lambda_init
        self.norm = nn.RMSNorm(hd, eps=1e-5)

    def forward(self, q, k, v):  # (b, h, s, hd)
        q1, q2 = q.chunk(2, -1)
        k1, k2 = k.chunk(2, -1)
        s = q.shape[-2]
        mask = torch.triu(torch.full((s, s), float("-inf"), device=q.device), 1)
        sc = 1 / math.sqrt(q1.shape[-1])
        a1 = torch.softmax(q1 @ k1.transpose(-1, -2) * sc + mask, -1)
        a2 = torch.softmax(q2 @ k2.transpose(-1, -2) * sc + mask, -1)
        lam = torch.exp((self.lq1 * self.lk1).sum()) - torch.exp((self.lq2 * self.lk2).sum()) + self.li
        return self.norm((a1 - lam * a2) @ v) * (1 - self.li)


class MLA(nn.Module):
    """DeepSeek-V2's multi-head latent attention (training form): q through a low-rank latent,
    k/v from one compressed latent (RMSNorm) up-projected per head, a decoupled RoPE part of
    the key shared over heads, causal SDPA, o-proj."""

    def __init__(self, s, d=1024, heads=8, q_rank=384, kv_rank=256, nope=64, rope=32, vd=64):
        super().__init__()
        self.h, self.nope, self.rope, self.vd = heads, nope, rope, vd
        self.q_a, self.q_norm = nn.Linear(d, q_rank, bias=False), nn.RMSNorm(q_rank)
        self.q_b = nn.Linear(q_rank, heads * (nope + rope), bias=False)
        self.kv_a = nn.Linear(d, kv_rank + rope, bias=False)
        self.kv_norm = nn.RMSNorm(kv_rank)
        self.kv_b = nn.Linear(kv_rank, heads * (nope + vd), bias=False)
        self.o = nn.Linear(heads * vd, d, bias=False)
        self.kv_rank = kv_rank
        inv = 1.0 / (10000 ** (torch.arange(0, rope, 2).float() / rope))
        f = torch.outer(torch.arange(s).float(), inv)
        self.register_buffer("cos", torch.cat((f, f), -1).cos())
        self.register_buffer("sin", torch.cat((f, f), -1).sin())

    def rope_(self, x):
        x1, x2 = x.chunk(2, -1)
        return x * self.cos + torch.cat((-x2, x1), -1) * self.sin

    def forward(self, x):
        b, s, _ = x.shape
        q = self.q_b(self.q_norm(self.q_a(x))).view(b, s, self.h, -1).transpose(1, 2)
        q_nope, q_pe = q.split((self.nope, self.rope), -1)
        ckv, k_pe = self.kv_a(x).split((self.kv_rank, self.rope), -1)
        kv = self.kv_b(self.kv_norm(ckv)).view(b, s, self.h, -1).transpose(1, 2)
        k_nope, v = kv.split((self.nope, self.vd), -1)
        k_pe = self.rope_(k_pe)[:, None].expand(b, self.h, s, self.rope)
        q = torch.cat((q_nope, self.rope_(q_pe)), -1)
        k = torch.cat((k_nope, k_pe), -1)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o(a.transpose(1, 2).reshape(b, s, -1))


class KANLayer(nn.Module):
    """A KAN layer (efficient-kan): SiLU base branch, plus cubic B-spline bases on a uniform
    grid by Cox-de Boor's recursion, contracted with the spline weights."""

    def __init__(self, nin, nout, grid=8, order=3, lo=-2.0, hi=2.0):
        super().__init__()
        h = (hi - lo) / grid
        g = torch.arange(-order, grid + order + 1).float() * h + lo
        self.register_buffer("grid", g.expand(nin, -1).contiguous())
        self.order = order
        self.base = nn.Linear(nin, nout, bias=False)
        self.spline = nn.Parameter(torch.empty(nout, nin * (grid + order)))

    def bases(self, x):  # (n, in) -> (n, in, grid + order)
        g, x = self.grid, x[..., None]
        b = ((x >= g[:, :-1]) & (x < g[:, 1:])).to(x.dtype)
        for k in range(1, self.order + 1):
            b = ((x - g[:, : -(k + 1)]) / (g[:, k:-1] - g[:, : -(k + 1)]) * b[..., :-1]
                 + (g[:, k + 1:] - x) / (g[:, k + 1:] - g[:, 1:-k]) * b[..., 1:])
        return b

    def forward(self, x):
        return self.base(F.silu(x)) + F.linear(self.bases(x).flatten(1), self.spline)


class RGB2HSV(nn.Module):
    """kornia's rgb_to_hsv: max / min over channels, the hue by where over the arg max, mod 6."""

    def forward(self, img):
        img = torch.sigmoid(img)  # into [0, 1]
        maxc, idx = img.max(-3)
        minc = img.min(-3).values
        v, delta = maxc, maxc - minc
        s = delta / (v + 1e-6)
        delta = torch.where(delta == 0, torch.ones_like(delta), delta)
        rc, gc, bc = (maxc[..., None, :, :] - img).unbind(-3)
        h1, h2, h3 = bc - gc, 2.0 * delta + rc - bc, 4.0 * delta + gc - rc
        h = torch.stack((h1, h2, h3), -3).gather(-3, idx[..., None, :, :]).squeeze(-3) / delta
        h = (h / 6.0) % 1.0 * (2 * math.pi)
        return torch.stack((h, s, v), -3)


class Conv4(nn.Module):
    """MAML's Conv-4 backbone: four blocks of 3x3 conv (64), BatchNorm without running
    statistics (track_running_stats=False: batch statistics in eval too), ReLU, 2x2 max pool;
    flattened to a 5-way linear head."""

    def __init__(self, cin=3, c=64, ways=5, side=84):
        super().__init__()
        blocks, ch = [], cin
        for _ in range(4):
            blocks += [nn.Conv2d(ch, c, 3, padding=1), nn.BatchNorm2d(c, track_running_stats=False), nn.ReLU(), nn.MaxPool2d(2)]
            ch = c
        self.features = nn.Sequential(*blocks)
        self.head = nn.Linear(c * (side // 16) ** 2, ways)

    def forward(self, x):
        return self.head(self.features(x).flatten(1))


CASES = [
    S("gpt2_block_4x256x768h12", "nlp", lambda: GPT2Block(256), ((4, 256, 768),)),
    S("convnextv2_block_8x96x56x56", "vision", lambda: ConvNeXtV2Block(96), ((8, 96, 56, 56),)),
    S("fused_mbconv_16x48x56x56e4", "vision", lambda: FusedMBConv(48), ((16, 48, 56, 56),)),
    S("mamba2_ssd_2x256h16p64n64", "scan", lambda: Mamba2SSD(16),
      ((2, 256, 16, 64), (2, 256, 16), (2, 256, 64), (2, 256, 64))),
    S("edgeconv_8x64x1024k20", "vision", lambda: EdgeConv(64, 64, 20), ((8, 64, 1024),)),
    S("detr_cost_8x100q92t60", "loss", lambda: DETRCost(60, 91), ((8, 100, 92), (8, 100, 4))),
    S("byol_loss_4096x256h4096", "loss", lambda: BYOLLoss(), ((4096, 256),) * 4),
    S("nerf_render_65536x64", "vision", lambda: NeRFRender(64), ((65536, 64, 4), (65536, 3))),
    S("lora_linear_8x512x1024r16", "mlp", lambda: LoRALinear(1024, 1024), ((8, 512, 1024),)),
    S("xent_ls_weighted_8192x1000", "loss", lambda: WeightedLSXent(8192, 1000), ((8192, 1000),)),
    S("r2plus1d_4x64x8x56x56", "vision", lambda: R2Plus1D(64, 64, 144), ((4, 64, 8, 56, 56),)),
    S("ctc_loss_16x200x32c29", "audio", lambda: CTC(16, 200, 32, 29), ((200, 16, 29),)),
    S("vae_attnblock_1x512x64x64", "attention", lambda: VAEAttnBlock(512), ((1, 512, 64, 64),)),
    S("ppo_gae_32x4096", "rl", lambda: PPOGAE(32, 4096), ((33, 4096), (32, 4096), (32, 4096))),
    S("skipgram_ns_8192x300v50000n5", "nlp", lambda: SkipGramNS(50000, 300, 8192, 5), ((300,),)),
    S("rnnt_joint_4x200x50x512v1024", "audio", lambda: RNNTJoint(512, 512, 1024), ((4, 200, 512), (4, 50, 512))),
    S("convs2s_glu_8x512x512l3", "nlp", lambda: ConvS2SEncoder(512), ((8, 512, 512),)),
    S("hyena_fftconv_4x256x2048", "scan", lambda: HyenaFFTConv(256, 2048), ((4, 256, 2048),) * 2),
    S("sparsemax_4096x1000", "mlp", lambda: Sparsemax(), ((4096, 1000),)),
    S("supcon_1024x128c100", "loss", lambda: SupCon(1024, 100), ((1024, 128),) * 2),
    S("diff_attn_4x8x512x64", "attention", lambda: DiffAttn(), ((4, 8, 512, 64),) * 3),
    S("mla_2x512x1024h8", "attention", lambda: MLA(512), ((2, 512, 1024),)),
    S("kan_layer_4096x64to64g8", "mlp", lambda: KANLayer(64, 64), ((4096, 64),)),
    S("rgb2hsv_16x3x512x512", "vision", lambda: RGB2HSV(), ((16, 3, 512, 512),)),
    S("maml_conv4_80x3x84x84", "vision", lambda: Conv4(), ((80, 3, 84, 84),)),
]
