"""Session 45 (host): 67 ordinary expressions captured and lowered to loop IR; prints the ones that fail
(the probe behind section "Order" of the notes):

    PYTHONPATH=<dir holding dpl> python3 bench/results/session45/tools/probe45.py"""
import torch, warnings, sys
warnings.filterwarnings("ignore")
from dpl.frontend.capture import capture_expression
from dpl.transforms.pipelines import run_pipeline, IR_PIPELINES
E = [
 "torch.cdist(torch.randn(64, 32), torch.randn(128, 32))",
 "torch.nn.functional.interpolate(torch.randn(2, 3, 17, 19), scale_factor=2, mode='bicubic', align_corners=False)",
 "torch.nn.functional.interpolate(torch.randn(2, 3, 17, 19), size=(30, 40), mode='nearest-exact')",
 "torch.nn.functional.fold(torch.randn(2, 27, 64), (10, 10), 3)",
 "torch.bucketize(torch.randn(100), torch.linspace(-2, 2, 9))",
 "torch.searchsorted(torch.sort(torch.randn(4, 20))[0], torch.randn(4, 7))",
 "torch.cumprod(torch.randn(8, 100), 1)",
 "torch.linalg.vector_norm(torch.randn(8, 100), ord=3, dim=1)",
 "torch.linalg.matrix_norm(torch.randn(8, 10, 10))",
 "torch.linalg.cholesky(torch.eye(8) * 3 + torch.randn(8, 8) * 0.1 @ torch.randn(8, 8).T * 0.1)",
 "torch.linalg.solve(torch.eye(8) * 3 + torch.randn(8, 8) * 0.1, torch.randn(8, 4))",
 "torch.linalg.qr(torch.randn(16, 8))[0]",
 "torch.linalg.svdvals(torch.randn(16, 8))",
 "torch.linalg.eigh(torch.randn(8, 8) + torch.randn(8, 8).T)[0]",
 "torch.det(torch.randn(16, 4, 4))",
 "torch.linalg.slogdet(torch.randn(16, 5, 5))[1]",
 "torch.cross(torch.randn(10, 3), torch.randn(10, 3), dim=1)",
 "torch.block_diag(torch.randn(3, 3), torch.randn(2, 4))",
 "torch.matrix_exp(torch.randn(4, 6, 6) * 0.3)",
 "torch.linalg.matrix_power(torch.randn(4, 6, 6) * 0.3, 5)",
 "torch.nn.functional.ctc_loss(torch.randn(50, 4, 20).log_softmax(2), torch.randint(1, 20, (4, 10)), torch.full((4,), 50), torch.full((4,), 10))",
 "torch.nn.functional.kl_div(torch.randn(8, 10).log_softmax(1), torch.randn(8, 10).softmax(1), reduction='batchmean')",
 "torch.nn.functional.triplet_margin_loss(torch.randn(8, 16), torch.randn(8, 16), torch.randn(8, 16))",
 "torch.nn.functional.poisson_nll_loss(torch.randn(8, 10), torch.rand(8, 10))",
 "torch.nn.functional.adaptive_max_pool2d(torch.randn(2, 4, 17, 13), (5, 3))",
 "torch.nn.functional.affine_grid(torch.randn(2, 2, 3), (2, 3, 8, 8), align_corners=False)",
 "torch.nn.functional.grid_sample(torch.randn(2, 3, 8, 8), torch.rand(2, 5, 5, 2) * 2 - 1, mode='bicubic', align_corners=True)",
 "torch.logaddexp(torch.randn(100), torch.randn(100))",
 "torch.isin(torch.randint(0, 10, (100,)), torch.tensor([1, 3, 5]))",
 "torch.nan_to_num(torch.randn(100) / 0.0)",
 "torch.take_along_dim(torch.randn(8, 10), torch.randint(0, 10, (8, 3)), 1)",
 "torch.count_nonzero(torch.randn(8, 10) > 0, 1)",
 "torch.aminmax(torch.randn(8, 10), dim=1)[0]",
 "torch.gradient(torch.randn(8, 10), dim=1)[0]",
 "torch.tensordot(torch.randn(3, 4, 5), torch.randn(4, 5, 6), dims=2)",
 "torch.cartesian_prod(torch.randn(3), torch.randn(4))",
 "torch.combinations(torch.randn(5), 2)",
 "torch.special.bessel_j0(torch.randn(100))",
 "torch.special.erfcx(torch.randn(100))",
 "torch.special.xlogy(torch.rand(100), torch.rand(100))",
 "torch.special.ndtri(torch.rand(100))",
 "torch.special.log_ndtr(torch.randn(100))",
 "torch.frac(torch.randn(100))",
 "torch.copysign(torch.randn(100), torch.randn(100))",
 "torch.heaviside(torch.randn(100), torch.tensor(0.5))",
 "torch.nn.functional.normalize(torch.randn(8, 10), p=1, dim=1)",
 "torch.nn.functional.local_response_norm(torch.randn(2, 8, 5, 5), 3)",
 "torch.nn.functional.embedding(torch.randint(0, 10, (4, 5)), torch.randn(10, 3), max_norm=1.0)",
 "torch.nn.functional.multi_margin_loss(torch.randn(8, 10), torch.randint(0, 10, (8,)))",
 "torch.nn.functional.hinge_embedding_loss(torch.randn(8, 10), torch.randint(0, 2, (8, 10)) * 2.0 - 1)",
 "torch.nn.functional.gaussian_nll_loss(torch.randn(8, 10), torch.randn(8, 10), torch.rand(8, 10) + 0.1)",
 "torch.nn.functional.huber_loss(torch.randn(8, 10), torch.randn(8, 10), delta=0.5)",
 "torch.trace(torch.randn(8, 8))",
 "torch.tril_indices(4, 4)",
 "torch.randn(8, 10).unfold(1, 3, 2).sum(-1)",
 "torch.vander(torch.randn(8), 4)",
 "torch.histc(torch.randn(1000), 10, -3, 3)",
 "torch.bincount(torch.randint(0, 10, (100,)), minlength=10)",
 "torch.diag_embed(torch.randn(4, 5))",
 "torch.kthvalue(torch.randn(8, 100), 5, 1)[0]",
 "torch.renorm(torch.randn(4, 5, 6), 2, 0, 1.0)",
 "torch.linalg.lstsq(torch.randn(10, 4), torch.randn(10, 2)).solution",
 "torch.cholesky_solve(torch.randn(8, 2), torch.linalg.cholesky(torch.eye(8) * 2))",
 "torch.triangular_solve(torch.randn(8, 2), torch.eye(8) * 2 + torch.randn(8, 8).triu() * 0.1)[0]",
 "torch.linalg.solve_triangular(torch.eye(8) * 2 + torch.randn(8, 8).triu() * 0.1, torch.randn(8, 2), upper=True)",
 "torch.logdet(torch.eye(6) * 2 + torch.randn(6, 6) * 0.1)",
 "torch.pinverse(torch.randn(6, 4))",
]
ok = 0
for e in E:
    try:
        prog = capture_expression(e)
        run_pipeline(prog.module, IR_PIPELINES["loop"])
        ok += 1
    except Exception as ex:
        print("FAIL", e[:90], "|", str(ex)[:160].replace("\n", " "), flush=True)
print(ok, "of", len(E))
