"""Session 46 (host): 139 more ordinary expressions (recurrent modules, transformer layers, MoE
routing, hand-written losses, embedding bags, 3-D pads and pools, special functions, casts,
distributions, ...), none of probe34/probe45/frontend_ops' or the ordinary* sets', captured and
lowered to loop IR; prints each failure (one line for a refusal, the last frames inside dpl for a
crash) and each expression's wall time:

    PYTHONPATH=<dir holding dpl> python3 bench/results/session46/tools/probe46.py [REGEX]
    PYTHONPATH=<dir holding dpl> python3 bench/results/session46/tools/probe46.py --from I   (from number I on)
    PYTHONPATH=<dir holding dpl> python3 bench/results/session46/tools/probe46.py --cuda I,J,...
        (the expressions numbered I, J, ... compiled through to CUDA and nvcc, as host43.py does)"""
import re
import signal
import sys
import time
import traceback
import warnings

import torch

warnings.filterwarnings("ignore")
from dpl.frontend.capture import capture_expression  # noqa: E402
from dpl.frontend.convert import UnsupportedOpError  # noqa: E402
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline  # noqa: E402

LIMIT_S = 150  # an expression still lowering after this long is stopped and reported

E = [
    # recurrent modules and cells
    "nn.GRU(16, 24, num_layers=2, bidirectional=True, batch_first=True)(torch.randn(3, 9, 16))[0]",
    "nn.RNN(12, 20, num_layers=2, nonlinearity='relu')(torch.randn(7, 3, 12))[1]",
    "nn.LSTM(16, 32, proj_size=8, batch_first=True)(torch.randn(2, 6, 16))[0]",
    "nn.LSTM(10, 20, bidirectional=True)(torch.randn(5, 3, 10), (torch.zeros(2, 3, 20), torch.zeros(2, 3, 20)))[1][1]",
    "nn.LSTMCell(16, 32)(torch.randn(4, 16), (torch.randn(4, 32), torch.randn(4, 32)))[0]",
    "(lambda x, h, wi, wh: (lambda gi, gh: (lambda r, z: (1 - z) * torch.tanh(gi[:, 64:] + r * gh[:, 64:]) + z * h)(torch.sigmoid(gi[:, :32] + gh[:, :32]), torch.sigmoid(gi[:, 32:64] + gh[:, 32:64])))(x @ wi, h @ wh))(torch.randn(8, 16), torch.randn(8, 32), torch.randn(16, 96), torch.randn(32, 96))",
    "(lambda x, W, U: __import__('functools').reduce(lambda h, xt: torch.tanh(xt @ W + h @ U), x.unbind(1), torch.zeros(4, 32)))(torch.randn(4, 12, 16), torch.randn(16, 32) * 0.3, torch.randn(32, 32) * 0.3)",
    "nn.GRU(8, 16, batch_first=True)(nn.utils.rnn.pack_padded_sequence(torch.randn(3, 6, 8), [6, 4, 2], batch_first=True))[1]",
    "nn.utils.rnn.pad_sequence([torch.randn(3, 4), torch.randn(5, 4), torch.randn(2, 4)], batch_first=True, padding_value=-1.0)",
    # transformer layers and attention
    "nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, activation='gelu', batch_first=True).eval()(torch.randn(2, 10, 32), src_key_padding_mask=torch.arange(10)[None] >= torch.tensor([[10], [6]]))",
    "nn.TransformerEncoder(nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0, batch_first=True, norm_first=True), 2, enable_nested_tensor=False).eval()(torch.randn(2, 10, 32), mask=torch.triu(torch.full((10, 10), float('-inf')), 1), is_causal=True)",
    "nn.MultiheadAttention(32, 4, batch_first=True)(torch.randn(2, 7, 32), torch.randn(2, 9, 32), torch.randn(2, 9, 32), key_padding_mask=torch.arange(9)[None] >= torch.tensor([[9], [5]]))[1]",
    "nn.MultiheadAttention(32, 4, kdim=16, vdim=24, batch_first=True)(torch.randn(2, 7, 32), torch.randn(2, 9, 16), torch.randn(2, 9, 24), need_weights=False)[0]",
    "(lambda x: nn.MultiheadAttention(32, 4)(x, x, x, attn_mask=torch.ones(8, 8, dtype=torch.bool).triu(1), average_attn_weights=False)[1])(torch.randn(8, 2, 32))",
    "nn.Transformer(32, 4, 1, 1, 64, dropout=0.0, batch_first=True).eval()(torch.randn(2, 9, 32), torch.randn(2, 6, 32))",
    "(lambda x, cls, pos: torch.cat([cls.expand(x.shape[0], -1, -1), nn.Conv2d(3, 48, 8, 8)(x).flatten(2).transpose(1, 2)], 1) + pos)(torch.randn(2, 3, 32, 32), torch.randn(1, 1, 48), torch.randn(1, 17, 48))",
    "(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, attn_mask=-(2.0 ** -torch.arange(1, 5).float())[:, None, None] * (torch.arange(12)[None, :] - torch.arange(12)[:, None]).abs().float(), scale=0.2))(torch.randn(2, 4, 12, 16), torch.randn(2, 4, 12, 16), torch.randn(2, 4, 12, 16))",
    "(lambda x, c, s: x * c.repeat_interleave(2, -1) + torch.stack((-x[..., 1::2], x[..., ::2]), -1).flatten(-2) * s.repeat_interleave(2, -1))(torch.randn(2, 4, 10, 16), torch.randn(10, 8), torch.randn(10, 8))",
    "(lambda t: (lambda a: torch.cat([a.sin(), a.cos()], -1))(t[:, None].float() * torch.exp(-math.log(10000) * torch.arange(32) / 32)[None]))(torch.randint(0, 1000, (6,)))",
    "(lambda table, c: table[((c[:, :, None] - c[:, None, :]).permute(1, 2, 0)[..., 0] + 3) * 7 + (c[:, :, None] - c[:, None, :]).permute(1, 2, 0)[..., 1] + 3].permute(2, 0, 1))(torch.randn(49, 4), torch.stack(torch.meshgrid(torch.arange(4), torch.arange(4), indexing='ij')).flatten(1))",
    "(lambda x: (lambda z, li: z[:, li[0], li[1]])(torch.bmm(x, x.transpose(1, 2)), torch.tril_indices(6, 6, -1)))(torch.randn(8, 6, 16))",
    "(lambda s: s.clone().fill_diagonal_(float('-inf')).softmax(-1))(torch.randn(8, 8))",
    # mixture of experts
    "(lambda l: torch.zeros_like(l).scatter(1, l.topk(2, -1).indices, l.topk(2, -1).values.softmax(-1)))(torch.randn(16, 8))",
    "(lambda x, W, idx, g: (torch.bmm(x.unsqueeze(1).expand(-1, 2, -1).reshape(-1, 1, 16), W[idx.flatten()]).view(-1, 2, 24) * g.softmax(-1)[..., None]).sum(1))(torch.randn(12, 16), torch.randn(4, 16, 24), torch.randint(0, 4, (12, 2)), torch.randn(12, 2))",
    "(lambda l: (F.one_hot(l.argmax(-1), 8).float().mean(0) * l.softmax(-1).mean(0)).sum() * 8)(torch.randn(64, 8))",
    "(lambda l: (torch.cumsum(F.one_hot(l.argmax(-1), 4), 0) * F.one_hot(l.argmax(-1), 4)).sum(-1) - 1)(torch.randn(32, 4))",
    # losses
    "(lambda x, t: -((F.one_hot(t, 10) * 0.9 + 0.01) * x.log_softmax(-1)).sum(-1).mean())(torch.randn(32, 10), torch.randint(0, 10, (32,)))",
    "(lambda x, t: (-(1 - x.softmax(-1).gather(1, t[:, None])) ** 2 * x.log_softmax(-1).gather(1, t[:, None])).mean())(torch.randn(16, 7), torch.randint(0, 7, (16,)))",
    "F.cross_entropy(torch.randn(16, 10), torch.randn(16, 10).softmax(-1), label_smoothing=0.1)",
    "F.cross_entropy(torch.randn(2, 5, 8, 8), torch.randint(-1, 5, (2, 8, 8)), weight=torch.rand(5), ignore_index=-1)",
    "F.kl_div(torch.randn(8, 10).log_softmax(-1), torch.randn(8, 10).log_softmax(-1), reduction='batchmean', log_target=True)",
    "F.triplet_margin_with_distance_loss(torch.randn(8, 16), torch.randn(8, 16), torch.randn(8, 16), distance_function=lambda a, b: 1 - F.cosine_similarity(a, b), margin=0.5)",
    "F.multilabel_margin_loss(torch.randn(4, 6), torch.tensor([[3, 0, -1, 1, 2, 1], [1, 2, 3, -1, 0, 0], [0, -1, 2, 2, 2, 2], [5, 4, -1, 0, 0, 0]]))",
    "F.binary_cross_entropy(torch.rand(8, 5) * 0.98 + 0.01, torch.rand(8, 5), weight=torch.rand(5))",
    "F.nll_loss(torch.randn(4, 6, 11).log_softmax(1), torch.randint(0, 6, (4, 11)), weight=torch.rand(6))",
    # sorting and selection
    "torch.mode(torch.randint(0, 5, (6, 11)), 1)",
    "torch.sort(torch.randn(3, 17, 5), dim=1, descending=True)",
    "torch.topk(torch.randn(4, 33, 6), 5, dim=1)",
    "torch.argsort(torch.randint(0, 4, (5, 12)), dim=1, stable=True)",
    "torch.unique_consecutive(torch.randint(0, 3, (20,)))",
    "(lambda x: torch.stack(torch.unravel_index(x.flatten(1).argmax(1), (5, 6)), -1))(torch.randn(3, 5, 6))",
    # embeddings, scatter, gather, segments
    "nn.EmbeddingBag(20, 8, mode='sum', padding_idx=0)(torch.randint(0, 20, (14,)), torch.tensor([0, 3, 3, 9]))",
    "nn.EmbeddingBag(20, 8, mode='mean', include_last_offset=True)(torch.randint(0, 20, (14,)), torch.tensor([0, 5, 9, 14]))",
    "F.embedding(torch.randint(0, 10, (4, 6)), torch.randn(10, 8), padding_idx=0)",
    "(lambda y: F.one_hot(y.argmax(-1), 10).float() - y.detach() + y)(torch.randn(6, 10).softmax(-1))",
    "torch.bincount(torch.randint(0, 8, (50,)), weights=torch.rand(50), minlength=8)",
    "torch.histogram(torch.randn(200), bins=8, range=(-2.0, 2.0))[0]",
    "torch.segment_reduce(torch.randn(12, 3), 'sum', lengths=torch.tensor([3, 4, 5]))",
    "torch.take(torch.randn(5, 7), torch.randint(0, 35, (4, 3)))",
    "(lambda x, b: torch.zeros(4, 8).index_add(0, b, x) / torch.bincount(b, minlength=4).clamp(min=1)[:, None])(torch.randn(30, 8), torch.randint(0, 4, (30,)))",
    "torch.repeat_interleave(torch.randn(3, 4), torch.tensor([1, 3, 2]), dim=0)",
    "torch.tensor_split(torch.randn(4, 13), [3, 8], dim=1)",
    "torch.cat(torch.split(torch.randn(3, 16, 5), [3, 5, 8], 1)[::-1], 1)",
    "torch.randn(4, 20).as_strided((4, 5, 8), (20, 3, 1))",
    # pads, convolutions, pools, resizing
    "F.pad(torch.randn(1, 2, 4, 5, 6), (1, 1, 2, 0, 1, 2), mode='reflect')",
    "F.pad(torch.randn(1, 2, 4, 5, 6), (2, 1, 1, 1, 0, 3), mode='replicate')",
    "nn.Conv2d(4, 8, 3, padding=1, padding_mode='reflect')(torch.randn(2, 4, 9, 10))",
    "nn.Conv1d(6, 6, 4, padding='same', dilation=2, groups=3)(torch.randn(2, 6, 17))",
    "nn.Conv3d(4, 4, 3, padding=1, groups=4)(torch.randn(1, 4, 5, 6, 7))",
    "nn.ConvTranspose2d(4, 3, 3, stride=2, padding=1)(torch.randn(1, 4, 5, 6), output_size=[10, 12])",
    "(lambda x, w: F.conv2d(x.reshape(1, -1, 8, 8), w.reshape(-1, 3, 3, 3), padding=1, groups=2).view(2, 4, 8, 8))(torch.randn(2, 3, 8, 8), torch.randn(2, 4, 3, 3, 3))",
    "nn.AdaptiveAvgPool3d((2, 3, 1))(torch.randn(2, 3, 5, 7, 4))",
    "nn.AdaptiveMaxPool3d(2)(torch.randn(1, 3, 5, 6, 7))",
    "nn.AvgPool3d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)(torch.randn(1, 2, 7, 8, 9))",
    "nn.AvgPool2d(3, stride=2, divisor_override=4)(torch.randn(2, 3, 9, 9))",
    "nn.MaxPool2d(3, stride=2, dilation=2, ceil_mode=True)(torch.randn(1, 3, 13, 12))",
    "F.interpolate(torch.randn(2, 3, 17), size=5, mode='area')",
    "F.interpolate(torch.randn(1, 3, 16, 20), scale_factor=0.5, mode='bilinear', antialias=True)",
    "F.interpolate(torch.randn(1, 2, 4, 5, 6), size=(7, 3, 9), mode='trilinear', align_corners=True)",
    "F.interpolate(torch.randn(2, 3, 9), scale_factor=2.5, mode='linear', align_corners=True)",
    "torch.randn(1, 16, 3, 4, 5).view(1, 2, 2, 2, 2, 3, 4, 5).permute(0, 1, 5, 2, 6, 3, 7, 4).reshape(1, 2, 6, 8, 10)",
    "F.unfold(torch.randn(2, 3, 10, 11), (3, 2), dilation=(2, 1), stride=(1, 2))",
    "F.grid_sample(torch.randn(2, 3, 6, 8), torch.stack(torch.meshgrid(torch.linspace(-1, 1, 8), torch.linspace(-1, 1, 6), indexing='xy'), -1)[None] + 0.1 * torch.randn(2, 6, 8, 2), align_corners=True)",
    "(lambda x: torch.cat([torch.rot90(x, k, (1, 2)) for k in range(4)]))(torch.randn(2, 5, 5))",
    # norms and parametrisations
    "nn.BatchNorm2d(4)(torch.randn(3, 4, 5, 5))",
    "nn.InstanceNorm3d(3, affine=True)(torch.randn(2, 3, 4, 5, 6))",
    "(lambda x, v, g: F.linear(x, g[:, None] * v / v.norm(dim=1, keepdim=True)))(torch.randn(8, 16), torch.randn(12, 16), torch.randn(12))",
    "(lambda w, u: (lambda v: w / (F.normalize(w @ v, dim=0) @ w @ v))(F.normalize(w.T @ u, dim=0)))(torch.randn(12, 16), torch.randn(12))",
    "(lambda g: g / torch.clamp(torch.linalg.vector_norm(torch.stack([torch.linalg.vector_norm(t) for t in g.unbind(0)])), min=1.0))(torch.randn(4, 50))",
    "nn.Dropout(0.1)(torch.randn(8, 16))",
    # contractions
    "torch.einsum('bi,oij,bj->bo', torch.randn(4, 5), torch.randn(3, 5, 6), torch.randn(4, 6))",
    "torch.einsum('...ij,...jk->...ik', torch.randn(2, 3, 4, 5), torch.randn(5, 6))",
    "torch.einsum('nchw,nc->nhw', torch.randn(2, 8, 5, 6), torch.randn(2, 8))",
    "torch.addr(torch.randn(5, 6), torch.randn(5), torch.randn(6), beta=0.5, alpha=2)",
    "(torch.randn(16, 32).half() @ torch.randn(32, 24).half()).float()",
    # elementwise, casts, integers
    "torch.nextafter(torch.randn(50), torch.zeros(50))",
    "torch.remainder(torch.randint(-20, 20, (40,)), -3) + torch.fmod(torch.randint(-20, 20, (40,)), 3)",
    "(torch.bitwise_and(torch.randint(0, 256, (40,)), 0x0F) | (torch.randint(0, 256, (40,)) ^ 0x55)) + ~torch.randint(0, 8, (40,))",
    "torch.stack([(torch.randn(60) * 50).to(torch.int8).float(), (torch.rand(60) * 255).to(torch.uint8).float(), (torch.randn(60) * 1000).to(torch.int16).float(), torch.randn(60).half().float(), torch.randn(60).bfloat16().float()])",
    "(torch.randint(0, 256, (2, 8, 8, 3), dtype=torch.uint8).permute(0, 3, 1, 2).float() / 255 - torch.tensor([0.485, 0.456, 0.406])[:, None, None]) / torch.tensor([0.229, 0.224, 0.225])[:, None, None]",
    "F.softmax(torch.randn(4, 33).half(), -1, dtype=torch.float32)",
    "torch.lerp(torch.randn(30), torch.randn(30), torch.rand(30))",
    "torch.clamp_min(torch.randint(-5, 5, (30,)), 0) * 2",
    "torch.where(torch.randn(5, 6) > 0, 1.0, -1.0)",
    "torch.isin(torch.randint(0, 10, (30,)), torch.tensor([2, 4]), invert=True)",
    "torch.randn(5, 7).sum(1, dtype=torch.float64)",
    # special functions
    "torch.special.entr(torch.rand(50))",
    "torch.special.xlog1py(torch.randn(50), torch.rand(50))",
    "torch.special.zeta(torch.rand(50) + 1.5, torch.rand(50) + 0.5)",
    "torch.special.polygamma(1, torch.rand(50) + 0.5)",
    "torch.special.i1(torch.randn(50) * 3)",
    "torch.special.i1e(torch.randn(50) * 10)",
    "torch.special.bessel_j1(torch.randn(50) * 5)",
    "torch.special.spherical_bessel_j0(torch.randn(50) * 5)",
    "torch.special.gammainc(torch.rand(50) * 3 + 0.1, torch.rand(50) * 4)",
    "torch.logaddexp2(torch.randn(50), torch.randn(50))",
    # statistics and calculus
    "torch.cov(torch.randn(3, 20), fweights=torch.randint(1, 4, (20,)), aweights=torch.rand(20))",
    "torch.diff(torch.randn(4, 9), n=2, dim=1, prepend=torch.zeros(4, 1), append=torch.ones(4, 2))",
    "torch.gradient(torch.randn(6, 9), spacing=(torch.linspace(0, 1, 6), torch.linspace(0, 2, 9) ** 2), edge_order=2)[1]",
    "torch.trapz(torch.randn(4, 9), torch.linspace(0, 1, 9))",
    "torch.count_nonzero(torch.randn(3, 4, 5) > 0, dim=(0, 2))",
    "(lambda r: torch.flip(torch.cumsum(torch.flip(r * 0.99 ** torch.arange(12.0), (1,)), 1), (1,)) / 0.99 ** torch.arange(12.0))(torch.randn(4, 12))",
    # distributions and audio
    "torch.distributions.Normal(torch.randn(10), torch.rand(10) + 0.5).log_prob(torch.randn(10))",
    "torch.distributions.Categorical(logits=torch.randn(6, 5)).entropy()",
    "torch.istft(torch.stft(torch.randn(2, 64), 16, 4, window=torch.hann_window(16), return_complex=True), 16, 4, window=torch.hann_window(16), length=64)",
    # follow-ups: scaling of the recurrent modules' lowering time, and the refusals' causes narrowed
    "nn.GRU(16, 24, batch_first=True)(torch.randn(3, 36, 16))[0]",
    "nn.LSTM(16, 24, num_layers=2, bidirectional=True, batch_first=True)(torch.randn(3, 9, 16))[0]",
    "nn.GRU(16, 24, num_layers=2, bidirectional=True, batch_first=True)(torch.randn(3, 32, 16))[0]",
    "nn.utils.rnn.pad_sequence([torch.randn(3, 4), torch.randn(5, 4)], batch_first=True)",
    "torch.constant_pad_nd(torch.randn(3, 4), [1, 2], 2.0)",
    "torch.distributions.Normal(torch.randn(10), torch.rand(10) + 0.5, validate_args=False).log_prob(torch.randn(10))",
    "torch.cov(torch.randn(3, 20), aweights=torch.rand(20))",
    "nn.EmbeddingBag(20, 8, mode='sum', padding_idx=0)(torch.randint(0, 20, (4, 5)))",
    "nn.AvgPool2d(2, 2, ceil_mode=True, count_include_pad=False)(torch.randn(2, 8, 7, 7))",
    # more ordinary programs: point clouds, detection, NeRF, sequence labelling, 3-D vision, functorch
    "(lambda x: (lambda idx: torch.cat([x[torch.arange(2)[:, None, None], idx] - x[:, :, None], x[:, :, None].expand(-1, -1, 4, -1)], -1))(torch.cdist(x, x).topk(4, largest=False).indices))(torch.randn(2, 16, 3))",
    "(lambda p: torch.cat([(p[..., :2].sigmoid() * 2 - 0.5 + torch.stack(torch.meshgrid(torch.arange(5), torch.arange(6), indexing='xy'), -1)[None, None]) * 8, (p[..., 2:4].sigmoid() * 2) ** 2 * torch.tensor([[10.0, 13.0], [16.0, 30.0], [33.0, 23.0]])[None, :, None, None], p[..., 4:].sigmoid()], -1))(torch.randn(2, 3, 6, 5, 9))",
    "(lambda x, dt, A, B, C: (torch.stack(list(__import__('itertools').accumulate(range(8), lambda h, t: torch.exp(dt[:, t, :, None] * A) * h + dt[:, t, :, None] * B[:, t, None, :] * x[:, t, :, None], initial=torch.zeros(2, 16, 4)))[1:], 1) * C[:, :, None, :]).sum(-1))(torch.randn(2, 8, 16), F.softplus(torch.randn(2, 8, 16)), -torch.rand(16, 4), torch.randn(2, 8, 4), torch.randn(2, 8, 4))",
    "(lambda xp, fp, x: (lambda i: fp[i - 1] + (fp[i] - fp[i - 1]) * (x - xp[i - 1]) / (xp[i] - xp[i - 1]))(torch.searchsorted(xp, x).clamp(1, 9)))(torch.linspace(0, 1, 10), torch.randn(10), torch.rand(30))",
    "(lambda sigma, rgb, d: (lambda a: ((a * torch.cumprod(torch.cat([torch.ones_like(a[:, :1]), 1 - a + 1e-10], -1), -1)[:, :-1])[..., None] * rgb).sum(1))(1 - torch.exp(-F.relu(sigma) * d)))(torch.randn(64, 32), torch.rand(64, 32, 3), torch.rand(64, 32) * 0.1)",
    "(lambda x: torch.cat([x] + [f(2.0 ** k * x) for k in range(6) for f in (torch.sin, torch.cos)], -1))(torch.randn(100, 3))",
    "(lambda em, T: __import__('functools').reduce(lambda a, e: torch.logsumexp(a[:, :, None] + T[None] + e[:, None, :], 1), em.unbind(1)[1:], em[:, 0]))(torch.randn(4, 10, 5), torch.randn(5, 5))",
    "(lambda q: (lambda w, x, y, z: torch.stack([1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w), 2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w), 2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)], -1).view(-1, 3, 3))(*F.normalize(q, dim=-1).unbind(-1)))(torch.randn(20, 4))",
    "(lambda x: torch.tanh(nn.Conv1d(8, 8, 2, dilation=4)(F.pad(x, (4, 0)))) * torch.sigmoid(nn.Conv1d(8, 8, 2, dilation=4)(F.pad(x, (4, 0)))))(torch.randn(2, 8, 30))",
    "(lambda s: (s.diagonal().fill_(0.0), s)[1])(torch.randn(6, 6).clone())",
    "nn.LazyConv2d(8, 3)(torch.randn(2, 3, 9, 9))",
    "torch.func.vmap(lambda a: a @ a.T)(torch.randn(4, 3, 5))",
    "torch.func.grad(lambda a: (a ** 3).sum())(torch.randn(5))",
    "F.interpolate(torch.randn(1, 3, 16, 20), size=(7, 9), mode='bicubic', antialias=True)",
    "torch.distributions.Categorical(logits=torch.randn(6, 5), validate_args=False).log_prob(torch.randint(0, 5, (6,)))",
]


class Timeout(Exception):
    pass


def _alarm(signum, frame):
    raise Timeout(f"still lowering after {LIMIT_S} s")


def dpl_frames(ex: BaseException, n: int = 3) -> str:
    """The last `n` frames of the traceback inside dpl, as file:line (function)."""
    fr = [f for f in traceback.extract_tb(ex.__traceback__) if "/dpl/" in f.filename]
    return " <- ".join(f"{f.filename.split('/dpl/', 1)[1]}:{f.lineno} ({f.name})" for f in reversed(fr[-n:]))


def kind(ex: BaseException) -> str:
    chain, e = [], ex
    while e is not None:
        chain.append(e)
        e = e.__cause__ or e.__context__
    if any(isinstance(e, UnsupportedOpError) for e in chain):
        return "REFUSED"
    if isinstance(ex, Timeout):
        return "TIMEOUT"
    if isinstance(ex, ValueError) and str(ex).startswith("<expression>"):
        return "EXPR"  # the expression failed in eager PyTorch itself
    return "CRASH"


def lower_all(pattern: str, start: int = 0) -> None:
    signal.signal(signal.SIGALRM, _alarm)
    ok = tried = 0
    slow = []
    t_all = time.perf_counter()
    for i, e in enumerate(E):
        if i < start or not re.search(pattern, e):
            continue
        tried += 1
        t0 = time.perf_counter()
        signal.alarm(LIMIT_S)
        try:
            prog = capture_expression(e)
            run_pipeline(prog.module, IR_PIPELINES["loop"])
            signal.alarm(0)
            dt = time.perf_counter() - t0
            ok += 1
            print(f"OK    #{i} ({dt:.1f} s) {e[:110]}", flush=True)
            if dt > 30:
                slow.append((i, dt))
        except BaseException as ex:  # noqa: BLE001 - each failure is a finding
            signal.alarm(0)
            if isinstance(ex, KeyboardInterrupt):
                raise
            dt = time.perf_counter() - t0
            k = kind(ex)
            msg = f"{type(ex).__name__}: {str(ex).splitlines()[0][:220] if str(ex) else ''}"
            print(f"{k:7s} #{i} ({dt:.1f} s) {e[:110]}\n        | {msg}", flush=True)
            if k in ("CRASH", "TIMEOUT"):
                print(f"        | at {dpl_frames(ex)}", flush=True)
    print(f"{ok} of {tried} lowered; slow (>30 s): {slow}; total {time.perf_counter() - t_all:.0f} s")


def cuda(indices: list[int]) -> None:
    """As bench/batch.py's host mode: the whole pipeline to CUDA, then nvcc (sm_90 / sm_90a)."""
    from dpl.backend.cuda_mma import WGMMA_ARCH, needs_sm90a
    from dpl.bench.sweep import nvcc_check
    from dpl.driver.compile import compile_program

    for i in indices:
        e = E[i]
        t0 = time.perf_counter()
        try:
            compiled = compile_program(capture_expression(e), tune_cache=False)
            dt = time.perf_counter() - t0
            arch = WGMMA_ARCH if needs_sm90a(compiled.module.walk()) else "sm_90"
            err = nvcc_check(compiled.cuda, arch)
            print(f"{'ok' if err is None else 'NVCC'} #{i} ({dt:.1f} s + nvcc {time.perf_counter() - t0 - dt:.1f} s) {e[:100]}"
                  + (f"\n        | {err}" if err else ""), flush=True)
        except Exception as ex:  # noqa: BLE001
            print(f"ERROR #{i} ({time.perf_counter() - t0:.1f} s) {e[:100]}\n        | {type(ex).__name__}: "
                  f"{str(ex).splitlines()[0][:220] if str(ex) else ''}\n        | at {dpl_frames(ex)}", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args and args[0] == "--cuda":
        cuda([int(s) for s in args[1].split(",")])
    elif args and args[0] == "--from":
        lower_all("", int(args[1]))
    else:
        lower_all(args[0] if args else "")
