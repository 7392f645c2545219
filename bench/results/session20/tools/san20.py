"""Session 20: held columns (hold-rows at a middle dim) run once under compute-sanitizer,
outputs poisoned first: channel RMSNorm with the last trip part past the channels (37 over 8
lanes), a softmax over dim 1, and the sweep's 32 x 256 x 56 x 56."""
import sys
sys.path.insert(0, "tests")
import torch
from dpl.driver.compile import compile as dpl_compile
from test_norm_schedule import ChannelRMSNorm, Softmax1

for mod, shape in [(ChannelRMSNorm(37), (8, 37, 33, 65)), (Softmax1(), (653, 32, 475)),
                   (ChannelRMSNorm(256), (32, 256, 56, 56))]:
    x = torch.randn(*shape)
    c = dpl_compile(mod, x, tune_cache=False)
    xc = x.cuda()
    out = c(xc, poison=True)
    ref = mod.double().cuda()(xc.double())
    mod.float()
    print(shape, c.num_kernels, float((out.double() - ref).norm() / ref.norm()))
