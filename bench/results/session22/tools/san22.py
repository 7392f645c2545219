"""Session 22: the column reductions blockify-launch now gives fewer lanes, once under
compute-sanitizer (outputs poisoned first): 1 lane with the block's warps on the axis before the
columns (512 x 37 x 2117 padded to 2144 columns, masked), 1 lane with 8 warps along the columns,
and 2 lanes (a tree across warps)."""
import torch
from dpl.driver.compile import compile as dpl_compile

for f, shape in [(lambda x: x.sum(dim=1), (512, 37, 2117)), (lambda x: x.amax(dim=1), (512, 40, 2048)),
                 (lambda x: x.mean(dim=1), (300, 97, 1000))]:
    x = torch.randn(*shape, device="cuda")
    c = dpl_compile(f, x, tune_cache=False)  # a callable: dpl.compile wraps it in a module
    out = c(x, poison=True)
    ref = f(x.double())
    print(shape, c.num_kernels, float((out.double() - ref).norm() / ref.norm()))
