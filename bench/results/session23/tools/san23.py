"""Session 23: merged column reductions (merge-columns) and the lane-major column tree, once
under compute-sanitizer (outputs poisoned first): an amax over dim 1 of 71 x 79 x 128 x 5 (640
merged columns, 8 lanes: the tree), an RMSNorm over the channels of 67 x 64 x 53 x 19 (1007
columns padded to 1024, masked; one kernel) and a softmax over dim 0 of 239 x 16 x 64 x 79."""
import torch
from dpl.driver.compile import compile as dpl_compile


def rmsnorm_c(x):
    return x * torch.rsqrt(x.pow(2).mean(dim=1, keepdim=True) + 1e-6)


for f, shape in [(lambda x: x.amax(dim=1), (71, 79, 128, 5)), (rmsnorm_c, (67, 64, 53, 19)),
                 (lambda x: torch.softmax(x, dim=0), (239, 16, 64, 79))]:
    x = torch.randn(*shape, device="cuda")
    c = dpl_compile(f, x, tune_cache=False)  # a callable: dpl.compile wraps it in a module
    out = c(x, poison=True)
    ref = f(x.double())
    print(shape, c.num_kernels, float((out.double() - ref).norm() / ref.norm()))
