"""One column sum at a given block size (row pipeline, column-trips 0), once in a profiler range.
argv: R BLOCK   (x: 64 x R x 1021, sum over dim 1)"""
import sys, torch
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.tile import schedule_classes as SC
R, bs = int(sys.argv[1]), int(sys.argv[2])
SC.PIPELINES["row reduction"] = SC.PIPELINES["row reduction"].replace("column-trips=64", f"column-trips=0 block-size={bs}")
x = torch.randn(64, R, 1021, device="cuda")
f = dpl_compile(lambda x: x.sum(1), x, tune_cache=False)
for _ in range(3):
    f(x)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStart()
f(x)
torch.cuda.synchronize()
torch.cuda.cudart().cudaProfilerStop()
