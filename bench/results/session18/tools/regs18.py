"""Local (no GPU): each probe's kernels, their launch, and nvcc's registers (sm_90)."""
import os, re, subprocess, sys, tempfile
sys.path.insert(0, "bench"); sys.path.insert(0, ".gpu/s18")
from dpl.driver.compile import compile as dpl_compile
from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import kernel as K
from cases18 import PROBES, get

only = sys.argv[1].split(",") if len(sys.argv) > 1 else None
for seed, name in PROBES:
    if only and not any(o in name for o in only):
        continue
    fn, inputs = get(seed, name).build("cpu")
    c = dpl_compile(fn, *inputs, tune_cache=False)
    src = c.cuda
    with tempfile.TemporaryDirectory() as d:
        open(f"{d}/k.cu", "w").write(src)
        r = subprocess.run(["nvcc", "-arch=sm_90", "-cubin", "-Xptxas", "-v", "-o", f"{d}/k.cubin", f"{d}/k.cu"],
                           capture_output=True, text=True)
    regs = dict(re.findall(r"Compiling entry function '(\w+)'.*?Used (\d+) registers", r.stderr, re.S))
    for k in c.kernels():
        print(f"{name:28s} {k.name:22s} grid {tuple(k.grid)} block {k.block[0]:4d} regs {regs.get(k.name, '?')}")
