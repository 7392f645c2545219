"""Session 34 (host): everyday PyTorch ops, one small program each, captured and lowered to loop IR
(no GPU); prints OK or the one-line error:

    python3 bench/results/session34/tools/probe34.py [NAME ...]"""
import torch, sys, traceback
import torch.nn.functional as F
from torch import nn
from dpl.frontend import capture
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
r = torch.randn
P = {
 "unfold": (lambda x: F.unfold(x, 3, padding=1), [r(2,4,9,9)]),
 "fold": (lambda x: F.fold(x, (9,9), 3, padding=1), [r(2,36,81)]),
 "lstm": (nn.LSTM(16, 32, batch_first=True), [r(2,7,16)]),
 "gru": (nn.GRU(16, 32, batch_first=True), [r(2,7,16)]),
 "grid_sample": (lambda x, g: F.grid_sample(x, g, align_corners=False), [r(2,3,8,8), r(2,5,5,2).tanh()]),
 "affine_grid": (lambda t: F.affine_grid(t, (2,3,8,8), align_corners=False), [r(2,2,3)]),
 "embedding_bag": (nn.EmbeddingBag(50, 8, mode="mean"), [torch.randint(0,50,(4,6))]),
 "interp_area": (lambda x: F.interpolate(x, size=(4,4), mode="area"), [r(2,3,9,9)]),
 "diag": (lambda x: torch.diag(x) + torch.trace(x), [r(7,7)]),
 "outer_kron": (lambda a, b: torch.kron(torch.outer(a, b), torch.ones(2,2)), [r(3), r(4)]),
 "cross": (lambda a, b: torch.linalg.cross(a, b), [r(5,3), r(5,3)]),
 "linalg_norm": (lambda x: torch.linalg.norm(x, dim=-1) + torch.linalg.vector_norm(x, ord=1, dim=-1), [r(5,9)]),
 "matrix_norm": (lambda x: torch.linalg.matrix_norm(x), [r(3,5,9)]),
 "var_mean": (lambda x: torch.var_mean(x, dim=1)[0] + torch.std_mean(x, dim=1)[1], [r(5,9)]),
 "logcumsumexp": (lambda x: torch.logcumsumexp(x, 1), [r(5,9)]),
 "cummax": (lambda x: torch.cummax(x, 1).values + torch.cummin(x, 1).values, [r(5,9)]),
 "nan_to_num": (lambda x: torch.nan_to_num(torch.log(x)), [r(5,9)]),
 "lerp_addcmul": (lambda a, b, c: torch.lerp(a, b, 0.3) + torch.addcmul(a, b, c, value=0.5) + torch.addcdiv(a, b, c.abs()+1), [r(5,9)]*3),
 "hypot_atan2": (lambda a, b: torch.hypot(a, b) + torch.atan2(a, b), [r(5,9)]*2),
 "frac_sign": (lambda a: torch.frac(a) + torch.sign(a) + torch.sgn(a) + torch.trunc(a), [r(5,9)]),
 "isclose": (lambda a, b: torch.isclose(a, b, atol=0.5).float(), [r(5,9)]*2),
 "take_along": (lambda x: torch.take_along_dim(x, x.argsort(1), 1), [r(5,9)]),
 "repeat_tile": (lambda x: x.repeat(2, 3) + torch.tile(x, (2, 3)), [r(5,9)]),
 "rot90": (lambda x: torch.rot90(x, 1, (1, 2)), [r(2,5,9)]),
 "one_hot": (lambda x: F.one_hot((x.abs()*3).long().clamp(max=9), 10).float(), [r(5,9)]),
 "adaptive_max": (lambda x: F.adaptive_max_pool2d(x, (3,3)), [r(2,3,9,10)]),
 "lp_pool": (lambda x: F.lp_pool2d(x, 2, 3), [r(2,3,9,9).abs()]),
 "lrn": (lambda x: F.local_response_norm(x, 3), [r(2,8,5,5)]),
 "misc_act": (lambda x: F.softsign(x)+F.tanhshrink(x)+F.logsigmoid(x)+F.hardtanh(x)+F.celu(x)+F.threshold(x,0.1,2.0)+F.softmin(x,-1)+F.hardshrink(x)+F.softshrink(x)+F.relu6(x)+F.silu(x)+F.hardsigmoid(x), [r(5,9)]),
 "losses2": (lambda a, b: F.cosine_embedding_loss(a, b, torch.ones(5)) + F.margin_ranking_loss(a[:,0], b[:,0], torch.ones(5)) + F.multilabel_soft_margin_loss(a, (b>0).float()) + F.poisson_nll_loss(a, b.abs()) + F.gaussian_nll_loss(a, b, torch.ones(5,9)), [r(5,9)]*2),
 "nll_soft": (lambda a: F.nll_loss(F.log_softmax(a, -1), torch.tensor([1,2,3,4,0])) + F.soft_margin_loss(a, torch.sign(a)) + F.l1_loss(a, a*2) + F.mse_loss(a, a.flip(0)) + F.hinge_embedding_loss(a, torch.sign(a)), [r(5,9)]),
 "pdist": (lambda a, b: F.pdist(a) .sum() + F.pairwise_distance(a, b).sum(), [r(6,9)]*2),
 "diff_trapz": (lambda x: torch.diff(x, dim=1).sum(1) + torch.trapezoid(x, dim=1), [r(5,9)]),
 "histc": (lambda x: torch.histc(x, 10, -2, 2), [r(100)]),
 "bucketize": (lambda x: torch.bucketize(x, torch.linspace(-2, 2, 9)).float(), [r(5,9)]),
 "searchsorted": (lambda s, x: torch.searchsorted(s.sort(-1).values, x).float(), [r(5,9), r(5,4)]),
 "meshgrid": (lambda a, b: sum(torch.meshgrid(a, b, indexing="ij")), [r(5), r(7)]),
 "triu_idx": (lambda x: x[tuple(torch.triu_indices(6, 6, 1))], [r(6,6)]),
 "block_diag": (lambda a, b: torch.block_diag(a, b), [r(2,3), r(3,2)]),
 "clamp_tensor": (lambda x, lo, hi: torch.clamp(x, lo, hi+lo.abs()), [r(5,9), r(9), r(9)]),
 "where_scalar": (lambda x: torch.where(x > 0, x, 0.0) + torch.maximum(x, x.flip(0)) + torch.fmax(x, x*2), [r(5,9)]),
 "erfinv_lgamma": (lambda x: torch.erfinv(x.tanh()*0.9) + torch.lgamma(x.abs()+1) + torch.digamma(x.abs()+1), [r(5,9)]),
 "special": (lambda x: torch.special.i0(x) + torch.special.expit(x) + torch.special.ndtr(x) + torch.special.log_ndtr(x) + torch.sinc(x) + torch.xlogy(x.abs(), x.abs()+1), [r(5,9)]),
 "logit_logaddexp": (lambda x, y: torch.logit(x.sigmoid()*0.98+0.01) + torch.logaddexp(x, y) + torch.log2(x.abs()+1) + torch.exp2(x) + torch.expm1(x), [r(5,9)]*2),
 "count_nonzero": (lambda x: torch.count_nonzero(x > 0, dim=1).float() + (x > 0).sum(1) + x.any(1).float() + x.all(1).float(), [r(5,9)]),
 "amax_multi": (lambda x: x.amax((0, 2)) + x.aminmax(dim=1).min.sum(), [r(3,5,9)]),
 "mode_median": (lambda x: x.median(1).values + x.nanmedian(1).values + x.quantile(0.3, dim=1), [r(5,9)]),
 "norm_p": (lambda x: x.norm(p=3, dim=1) + x.renorm(2, 0, 1.0).sum(1), [r(5,9)]),
 "baddbmm_addbmm": (lambda i, a, b: torch.addbmm(i[0], a, b) + torch.baddbmm(i, a, b).sum(0) + torch.addmv(i[0,:,0], a[0], b[0,:,0]).sum(), [r(3,4,5), r(3,4,6), r(3,6,5)]),
 "chain_matmul": (lambda a, b, c: torch.linalg.multi_dot([a, b, c]) + torch.chain_matmul(a, b, c), [r(4,5), r(5,6), r(6,3)]),
 "tensordot": (lambda a, b: torch.tensordot(a, b, dims=([1, 2], [0, 1])), [r(3,4,5), r(4,5,6)]),
 "prelu_glu": (nn.Sequential(nn.PReLU(8), nn.GLU(1)), [r(4,8,5)]),
 "pixel_unshuffle": (nn.PixelUnshuffle(2), [r(2,3,8,8)]),
 "channel_shuffle": (nn.ChannelShuffle(2), [r(2,4,3,3)]),
 "transformer_dec": (nn.TransformerDecoderLayer(32, 4, 64, dropout=0.0, batch_first=True), [r(2,5,32), r(2,7,32)]),
 "conv3d": (nn.Conv3d(3, 8, 3, padding=1), [r(2,3,5,6,7)]),
 "convT1d": (nn.ConvTranspose1d(4, 6, 4, stride=2, padding=1), [r(2,4,9)]),
 "maxunpool": (lambda x: F.max_unpool2d(*F.max_pool2d(x, 2, return_indices=True), 2), [r(2,3,8,8)]),
 "upsample_trilinear": (lambda x: F.interpolate(x, scale_factor=2, mode="trilinear"), [r(1,2,3,4,5)]),
 "avgpool3d": (lambda x: F.avg_pool3d(x, 2) + F.max_pool3d(x, 2), [r(1,2,4,6,8)]),
 "fft": (lambda x: torch.fft.rfft(x).abs(), [r(4,16)]),
 "std_unbiased0": (lambda x: x.std(0, unbiased=False) + x.var(1, correction=0).sum(), [r(5,9)]),
 "masked_scatter_fill": (lambda x: x.masked_fill(x > 1, 1.0) + x.index_fill(1, torch.tensor([0,2]), -1.0), [r(5,9)]),
 "index_add": (lambda x, s: x.index_add(0, torch.tensor([0,2,2]), s), [r(5,9), r(3,9)]),
 "scatter_reduce": (lambda x, s: x.scatter_reduce(1, torch.tensor([[0,1,1]]*5), s, reduce="amax"), [r(5,9), r(5,3)]),
 "cov_corrcoef": (lambda x: torch.cov(x) + torch.corrcoef(x), [r(4,9)]),
 "cosine_sim_matrix": (lambda a, b: F.cosine_similarity(a[:, None], b[None], dim=-1), [r(5,9), r(7,9)]),
 "new_tensor_ops": (lambda x: x.new_ones(x.shape) * x.new_tensor(2.0) + torch.full_like(x, 3) + torch.empty_like(x).fill_(1), [r(5,9)]),
 "arange_ops": (lambda x: x * torch.arange(9, device=x.device) + torch.linspace(0, 1, 9) + torch.logspace(0, 1, 9), [r(5,9)]),
 "complex_view": (lambda x: torch.view_as_real(torch.view_as_complex(x.reshape(5, 3, 2)) * 2), [r(5,6)]),
}
only = sys.argv[1:] or list(P)
for name in only:
    fn, ins = P[name]
    mod = fn if isinstance(fn, nn.Module) else type("M", (nn.Module,), {"forward": lambda self, *a, f=fn: f(*a)})()
    try:
        prog = capture(mod.eval(), *ins)
        run_pipeline(prog.module, IR_PIPELINES["loop"])
        print(f"OK    {name}")
    except Exception as e:
        print(f"FAIL  {name}: {type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}")
