"""Session 21: the kernels this session's schedules give, once under compute-sanitizer (outputs
poisoned first): a batched vector-matrix product (a column reduction, 45 columns over a warp),
a thin matmul on wgmma (31 x 3001 x 997, A stored [K, M]), and a flash kernel with the scale
left to the softmax on a ragged causal length."""
import torch
import torch.nn.functional as F
from dpl.driver.compile import compile as dpl_compile

for f, shapes in [(lambda a, b: a @ b, [(5, 1, 97), (5, 97, 45)]),
                  (lambda a, b: a.T @ b, [(997, 31), (997, 3001)]),
                  (lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True), [(1, 4, 77, 128)] * 3)]:
    xs = [torch.randn(*s, device="cuda") for s in shapes]
    c = dpl_compile(f, *xs, tune_cache=False)  # a callable: dpl.compile wraps it in a module
    out = c(*xs, poison=True)
    ref = f(*(x.double() for x in xs))
    print(shapes, c.num_kernels, float((out.double() - ref).norm() / ref.norm()))
