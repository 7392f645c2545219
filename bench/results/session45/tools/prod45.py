"""Session 45 (device): products over a short last dim on the GPU against PyTorch in float64
(a det written as the product of its stacked pivots failed GPU parity, call 2)."""
import torch

from dpl.driver.compile import compile as dc

g = torch.Generator().manual_seed(45)
cases = {
    "prod 5 x 3": (lambda x: x.prod(-1), [torch.randn(5, 3, generator=g)]),
    "prod of where 7 x 3": (lambda x: torch.where(x > 0, -x, x).prod(-1), [torch.randn(7, 3, generator=g)]),
    "prod of stack 6": (lambda x, y, z: torch.stack([x, y * 2, z], -1).prod(-1), [torch.randn(6, generator=g) for _ in range(3)]),
    "prod 64 x 37": (lambda x: (x * 0.1 + 1).prod(-1), [torch.randn(64, 37, generator=g)]),
}
for name, (fn, xs) in cases.items():
    c = dc(fn, *xs)
    out = c(*[x.cuda() for x in xs], poison=True)
    ref = fn(*[x.cuda().double() for x in xs])
    print(name, "err %.1e" % float((out.double() - ref).norm() / ref.norm()), flush=True)
