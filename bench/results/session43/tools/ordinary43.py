"""Session 43: a seventh batch of ordinary programs none of sessions 32-42's sets hold, as a new
user writes them: Llama's complex RoPE, a spatial transformer (affine_grid + grid_sample),
overlap-add with fold, a batch of nn losses, special functions (a Beta/Gamma log-density), a
full nn.LSTM, bf16 MLP and attention, GQA through SDPA with a bool mask, mesh normals by cross
products, batched 3x3 inverses, a hash-grid embedding, diff / trapezoid integration, adaptive
max pooling, LP pooling, circular-padded convolution, area and nearest-exact resizing, a
Kronecker-factored linear, diag_embed / trace, cummin / logaddexp, flip-and-rotate test-time
augmentation, NaN-aware statistics, a BigVGAN-style upsampler with Snake, a log-space linear
scan, an edge softmax by scatter, an FFT low-pass, bilinear pooling, pixel unshuffle, and
batch-norm statistics computed by hand, as sweep cases.

    from ordinary43 import CASES"""
import sys

import torch
from torch import nn
import torch.nn.functional as F

sys.path.insert(0, "bench")
import sweep  # noqa: E402

S = sweep.SweepCase


def _gen(seed: int) -> torch.Generator:
    return torch.Generator().manual_seed(seed)


class RopeComplex(nn.Module):
    """Llama's reference RoPE: pairs as complex numbers times the unit phasors."""

    def __init__(self, s, d):
        super().__init__()
        freqs = 1.0 / (10000 ** (torch.arange(0, d, 2).float() / d))
        t = torch.outer(torch.arange(s).float(), freqs)
        self.register_buffer("cos", t.cos())
        self.register_buffer("sin", t.sin())

    def forward(self, q, k):
        f = torch.polar(torch.ones_like(self.cos), torch.atan2(self.sin, self.cos))
        qc = torch.view_as_complex(q.reshape(*q.shape[:-1], -1, 2))
        kc = torch.view_as_complex(k.reshape(*k.shape[:-1], -1, 2))
        return torch.view_as_real(qc * f).flatten(3), torch.view_as_real(kc * f).flatten(3)


class SpatialTransformer(nn.Module):
    """A localisation head predicts an affine map; the input is resampled through it."""

    def __init__(self, c):
        super().__init__()
        self.loc = nn.Linear(c, 6)

    def forward(self, x):
        theta = torch.eye(2, 3, device=x.device) + 0.1 * torch.tanh(self.loc(x.mean((2, 3)))).view(-1, 2, 3)
        grid = F.affine_grid(theta, list(x.shape), align_corners=False)
        return F.grid_sample(x, grid, mode="bilinear", padding_mode="zeros", align_corners=False)


class OverlapAdd(nn.Module):
    """Patches out, a per-patch linear, patches back by overlap-add, divided by the overlap."""

    def __init__(self, c, k=4, s=2):
        super().__init__()
        self.k, self.s = k, s
        self.proj = nn.Linear(c * k * k, c * k * k)

    def forward(self, x):
        h, w = x.shape[-2:]
        cols = F.unfold(x, self.k, stride=self.s)
        cols = self.proj(cols.transpose(1, 2)).transpose(1, 2)
        ones = torch.ones_like(x[:1, :1])
        norm = F.fold(F.unfold(ones, self.k, stride=self.s), (h, w), self.k, stride=self.s)
        return F.fold(cols, (h, w), self.k, stride=self.s) / norm


class LossBatch(nn.Module):
    """Nine torch.nn losses on one batch of scores."""

    def forward(self, x, y):
        t = (y > 0).float()
        cls = y.argmax(-1)
        sign = torch.where(y[:, 0] > 0, 1.0, -1.0)
        return torch.stack([
            F.poisson_nll_loss(x, y.abs()),
            F.gaussian_nll_loss(x, y, F.softplus(y) + 0.1),
            F.multilabel_soft_margin_loss(x, t),
            F.multi_margin_loss(x, cls),
            F.hinge_embedding_loss(x.norm(dim=-1), sign),
            F.margin_ranking_loss(x[:, 0], x[:, 1], sign),
            F.cosine_embedding_loss(x, y, sign),
            F.soft_margin_loss(x, torch.sign(y)),
            F.smooth_l1_loss(x, y, beta=0.5),
        ])


class BetaLogPdf(nn.Module):
    """log Beta(x; a, b) and a Gamma entropy term: lgamma, digamma, xlogy, log1p, erfinv."""

    def forward(self, x, y):
        a, b = F.softplus(x) + 0.5, F.softplus(y) + 0.5
        u = torch.sigmoid(x - y).clamp(1e-4, 1 - 1e-4)
        logp = (torch.xlogy(a - 1, u) + torch.xlogy(b - 1, 1 - u)
                + torch.lgamma(a + b) - torch.lgamma(a) - torch.lgamma(b))
        ent = a - torch.log(b) + torch.lgamma(a) + (1 - a) * torch.digamma(a)
        z = torch.erfinv(2 * u - 1) + torch.special.i0(u) + torch.sinc(x) + torch.logit(u)
        return logp + ent + torch.log1p(z.abs()) + torch.expm1(-u)


class LSTMSeq(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.lstm = nn.LSTM(d, h, batch_first=True)

    def forward(self, x):
        return self.lstm(x)[0]


class Bf16MLP(nn.Module):
    def __init__(self, d, h):
        super().__init__()
        self.up, self.down = nn.Linear(d, h), nn.Linear(h, d)
        self.norm = nn.LayerNorm(d)

    def forward(self, x):
        x = x.to(torch.bfloat16)
        y = self.down(F.gelu(self.up(self.norm(x))))
        return (x + y).float()


class Bf16Attention(nn.Module):
    def forward(self, q, k, v):
        q, k, v = (t.to(torch.bfloat16) for t in (q, k, v))
        return F.scaled_dot_product_attention(q, k, v, is_causal=True).float()


class GQAMasked(nn.Module):
    """SDPA with enable_gqa and a padding mask as bools."""

    def __init__(self, s, pad):
        super().__init__()
        keep = torch.arange(s) < s - pad
        self.register_buffer("mask", keep[None, None, None, :])

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, attn_mask=self.mask, enable_gqa=True)


class MeshNormals(nn.Module):
    """Face normals of a triangle soup by cross products, normalised, and their areas."""

    def forward(self, a, b, c):
        n = torch.linalg.cross(b - a, c - a, dim=-1)
        area = 0.5 * torch.linalg.vector_norm(n, dim=-1, keepdim=True)
        return torch.cat([F.normalize(n, dim=-1), area], -1)


class Inverse3(nn.Module):
    """Batched 3x3 inverses and determinants (poses, covariances)."""

    def forward(self, m):
        m = m.view(-1, 3, 3) + 3 * torch.eye(3, device=m.device)
        return torch.linalg.inv(m), torch.linalg.det(m)


class HashGrid(nn.Module):
    """One level of instant-NGP's hash encoding: corners hashed by xor of primes, looked up,
    blended trilinearly."""

    def __init__(self, table, feat, res):
        super().__init__()
        self.t, self.res = table, res
        self.emb = nn.Embedding(table, feat)
        self.register_buffer("primes", torch.tensor([1, 2654435761, 805459861]))

    def forward(self, x):
        p = torch.sigmoid(x) * self.res
        p0 = p.floor()
        w = p - p0
        i0 = p0.long()
        out = 0
        for corner in range(8):
            off = torch.tensor([(corner >> d) & 1 for d in range(3)], device=x.device)
            idx = (i0 + off) * self.primes
            h = (idx[:, 0] ^ idx[:, 1] ^ idx[:, 2]) % self.t
            wt = torch.where(off.bool(), w, 1 - w).prod(-1, keepdim=True)
            out = out + wt * self.emb(h)
        return out


class DiffTrapz(nn.Module):
    def forward(self, x):
        d = torch.diff(x, dim=-1, prepend=x[:, :1])
        return torch.cumulative_trapezoid(d.abs(), dim=-1), torch.trapezoid(x, dim=-1)


class AdaMaxPool(nn.Module):
    def forward(self, x):
        return F.adaptive_max_pool2d(x, 7)


class LPPool(nn.Module):
    def __init__(self):
        super().__init__()
        self.pool = nn.LPPool2d(2, 3, stride=2)

    def forward(self, x):
        return self.pool(x.abs())


class CircularConv(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.conv = nn.Conv2d(c, c, 3, padding=1, padding_mode="circular")

    def forward(self, x):
        return F.silu(self.conv(x))


class Resize(nn.Module):
    def forward(self, x):
        a = F.interpolate(x, size=(33, 33), mode="area")
        b = F.interpolate(x, scale_factor=1.5, mode="nearest-exact")
        return a.mean((2, 3)) + b.mean((2, 3))


class KronLinear(nn.Module):
    """A Kronecker-factored weight, built explicitly with torch.kron."""

    def __init__(self, a, b):
        super().__init__()
        self.A, self.B = nn.Parameter(torch.empty(a, a)), nn.Parameter(torch.empty(b, b))

    def forward(self, x):
        return x @ torch.kron(self.A, self.B).T


class DiagTrace(nn.Module):
    def forward(self, x):
        m = torch.diag_embed(x.sigmoid()) + x[:, :, None] * x[:, None, :] / x.shape[-1]
        return torch.diagonal(m @ m, dim1=-2, dim2=-1), torch.einsum("bii->b", m)


class CumMin(nn.Module):
    def forward(self, x):
        v, i = torch.cummin(x, dim=-1)
        return torch.logaddexp(v, x), i


class FlipTTA(nn.Module):
    """Test-time augmentation: a conv on the image, flipped and rotated, mapped back, averaged."""

    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3, padding=1)

    def forward(self, x):
        outs = [self.conv(x), self.conv(x.flip(-1)).flip(-1)]
        outs.append(torch.rot90(self.conv(torch.rot90(x, 1, (2, 3))), -1, (2, 3)))
        return torch.stack(outs).mean(0)


class NanStats(nn.Module):
    def forward(self, x):
        x = torch.where(x > 2.5, torch.nan, torch.where(x < -3.5, torch.inf, x))
        clean = torch.nan_to_num(x, nan=0.0, posinf=1.0, neginf=-1.0)
        finite = torch.isfinite(x)
        return torch.nansum(x, -1), torch.nanmean(torch.where(finite, x, torch.nan), -1), clean.sum(0)


class SnakeUp(nn.Module):
    """BigVGAN-style: a transposed conv upsampling by 4, Snake, a dilated residual conv."""

    def __init__(self, c):
        super().__init__()
        self.up = nn.ConvTranspose1d(c, c // 2, 8, stride=4, padding=2)
        self.alpha = nn.Parameter(torch.empty(1, c // 2, 1))
        self.res = nn.Conv1d(c // 2, c // 2, 3, dilation=3, padding=3)

    def forward(self, x):
        y = self.up(x)
        s = y + (1.0 / (self.alpha + 1e-9)) * torch.sin(self.alpha * y) ** 2
        return y + self.res(s)


class LogScan(nn.Module):
    """A gated linear recurrence h_t = a_t h_{t-1} + b_t in log space (Heinsen's scan):
    logcumsumexp along the sequence, a middle axis."""

    def forward(self, x, g):
        log_a = F.logsigmoid(g)
        a_star = torch.cumsum(log_a, dim=1)
        log_b = F.logsigmoid(x)  # positive inputs, so the log exists
        return torch.exp(a_star + torch.logcumsumexp(log_b - a_star, dim=1))


class EdgeSoftmax(nn.Module):
    """GAT's softmax over each node's incoming edges by scatter_reduce and index_add."""

    def __init__(self, nodes, edges):
        super().__init__()
        g = _gen(7)
        self.n = nodes
        self.register_buffer("dst", torch.randint(0, nodes, (edges,), generator=g))

    def forward(self, e, v):
        e = F.leaky_relu(e, 0.2)
        heads = e.shape[1]
        m = torch.full((self.n, heads), -torch.inf, device=e.device).scatter_reduce(
            0, self.dst[:, None].expand(-1, heads), e, "amax", include_self=True)
        p = torch.exp(e - m[self.dst])
        z = torch.zeros(self.n, heads, device=e.device).index_add_(0, self.dst, p)
        a = p / z[self.dst]
        return torch.zeros(self.n, heads, device=e.device).index_add_(0, self.dst, a * v)


class FFTLowPass(nn.Module):
    def forward(self, x):
        f = torch.fft.rfft(x, dim=-1)
        keep = torch.arange(f.shape[-1], device=x.device) < f.shape[-1] // 4
        return torch.fft.irfft(f * keep, n=x.shape[-1], dim=-1)


class BilinearPool(nn.Module):
    """Bilinear pooling: the channel outer product averaged over space, signed sqrt, L2."""

    def forward(self, x):
        b, c, h, w = x.shape
        g = torch.einsum("bchw,bdhw->bcd", x, x) / (h * w)
        g = torch.sign(g) * torch.sqrt(g.abs() + 1e-8)
        return F.normalize(g.flatten(1), dim=-1)


class Unshuffle(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.proj = nn.Conv2d(4 * c, c, 1)

    def forward(self, x):
        return self.proj(F.pixel_unshuffle(x, 2))


class BNStats(nn.Module):
    """Batch norm as in training: statistics over (N, H, W), biased variance."""

    def __init__(self, c):
        super().__init__()
        self.w, self.b = nn.Parameter(torch.empty(c)), nn.Parameter(torch.empty(c))

    def forward(self, x):
        mean = x.mean((0, 2, 3), keepdim=True)
        var = x.var((0, 2, 3), keepdim=True, unbiased=False)
        return (x - mean) * torch.rsqrt(var + 1e-5) * self.w[:, None, None] + self.b[:, None, None]


CASES = [
    S("rope_complex_4x32x512x128", "attention", lambda: RopeComplex(512, 128), ((4, 32, 512, 128),) * 2),
    S("stn_8x64x64x64", "vision", lambda: SpatialTransformer(64), ((8, 64, 64, 64),)),
    S("overlap_add_8x16x64x64", "vision", lambda: OverlapAdd(16), ((8, 16, 64, 64),)),
    S("loss_batch_4096x100", "nlp", lambda: LossBatch(), ((4096, 100), (4096, 100))),
    S("beta_logpdf_1048576", "mlp", lambda: BetaLogPdf(), ((1048576,), (1048576,))),
    S("lstm_32x64x256h256", "nlp", lambda: LSTMSeq(256, 256), ((32, 64, 256),)),
    S("bf16_mlp_4096x1024h4096", "mlp", lambda: Bf16MLP(1024, 4096).to(torch.bfloat16), ((4096, 1024),)),
    S("bf16_attn_4x16x1024x64", "attention", lambda: Bf16Attention(), ((4, 16, 1024, 64),) * 3),
    S("gqa_masked_2x32x1024x128kv8", "attention", lambda: GQAMasked(1024, 100),
      ((2, 32, 1024, 128), (2, 8, 1024, 128), (2, 8, 1024, 128))),
    S("mesh_normals_262144", "vision", lambda: MeshNormals(), ((262144, 3),) * 3),
    S("inverse3_65536", "vision", lambda: Inverse3(), ((65536, 9),)),
    S("hash_grid_262144t2e19f2", "vision", lambda: HashGrid(2 ** 19, 2, 128), ((262144, 3),)),
    S("diff_trapz_64x8192", "nlp", lambda: DiffTrapz(), ((64, 8192),)),
    S("adamaxpool_16x256x37x37", "vision", lambda: AdaMaxPool(), ((16, 256, 37, 37),)),
    S("lppool_8x64x112x112", "vision", lambda: LPPool(), ((8, 64, 112, 112),)),
    S("circular_conv_8x64x64x64", "vision", lambda: CircularConv(64), ((8, 64, 64, 64),)),
    S("resize_area_8x64x100x100", "vision", lambda: Resize(), ((8, 64, 100, 100),)),
    S("kron_linear_4096x64x32", "mlp", lambda: KronLinear(64, 32), ((4096, 2048),)),
    S("diag_trace_64x256", "mlp", lambda: DiagTrace(), ((64, 256),)),
    S("cummin_64x8192", "nlp", lambda: CumMin(), ((64, 8192),)),
    S("flip_tta_16x3x256x256", "vision", lambda: FlipTTA(), ((16, 3, 256, 256),)),
    S("nan_stats_4096x4096", "mlp", lambda: NanStats(), ((4096, 4096),)),
    S("snake_up_8x256x2048", "audio", lambda: SnakeUp(256), ((8, 256, 2048),)),
    S("log_scan_8x2048x512", "nlp", lambda: LogScan(), ((8, 2048, 512),) * 2),
    S("edge_softmax_20000n200000e4h", "graph", lambda: EdgeSoftmax(20000, 200000), ((200000, 4), (200000, 4))),
    S("fft_lowpass_64x16384", "audio", lambda: FFTLowPass(), ((64, 16384),)),
    S("bilinear_pool_16x256x28x28", "vision", lambda: BilinearPool(), ((16, 256, 28, 28),)),
    S("unshuffle_8x64x128x128", "vision", lambda: Unshuffle(64), ((8, 64, 128, 128),)),
    S("bn_stats_32x128x56x56", "vision", lambda: BNStats(128), ((32, 128, 56, 56),)),
]
