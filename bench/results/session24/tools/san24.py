"""Session 24: programs whose stages take each fill plan (stage_fills.fill_plan), under
compute-sanitizer (outputs poisoned first): bmm nt 4 x 97x139x37 (whole K, rows of 40: split
once), x @ w.T 300 x 200 x 113 (rows of 116: by rows), bmm tt 21 x 25x1381x101 (B by rows, 64
copies a thread: each row's unrolled) and a LayerNorm over the last two dims of 64 x 32 x 175
(contiguous: flat). Calls 1 and 2 ran it on the first cuts (by rows only; split once only)."""
import torch
from dpl.driver.compile import compile as dpl_compile

cases = [(lambda a, b: torch.bmm(a, b.transpose(1, 2)), [(4, 97, 37), (4, 139, 37)]),
         (lambda a, b: a @ b.t(), [(300, 113), (200, 113)]),
         (lambda a, b: torch.bmm(a.transpose(1, 2), b.transpose(1, 2)), [(21, 101, 25), (21, 1381, 101)]),
         (lambda x: torch.nn.functional.layer_norm(x, (32, 175)), [(64, 32, 175)])]
for f, shapes in cases:
    xs = [torch.randn(*s, device="cuda") for s in shapes]
    c = dpl_compile(f, *xs, tune_cache=False)
    out = c(*xs, poison=True)
    ref = f(*[x.double() for x in xs])
    print(shapes, c.num_kernels, float((out.double() - ref).norm() / ref.norm()))
