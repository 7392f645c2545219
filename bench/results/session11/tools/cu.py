"""python .gpu/cu.py SEED:NAME [--ir cuda|kernel|tile] [-v]: a sweep case's IR (no GPU)."""
import logging, os, sys
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "bench"))
import torch, sweep
from dpl.frontend import capture
from dpl.driver.compile import lower
from dpl.backend.cuda_printer import print_cuda  # noqa
spec = sys.argv[1]; seed, name = spec.split(":")
case = {c.name: c for c in sweep.all_cases(int(seed))}[name]
fn, inputs = case.build("cpu")
if "-v" in sys.argv:
    logging.basicConfig(level=logging.INFO)
prog = capture(fn, *inputs, dtype=torch.float32)
mod, _ = lower(prog, verbose=False)
print(print_cuda(mod) if "--ir" not in sys.argv else mod)
