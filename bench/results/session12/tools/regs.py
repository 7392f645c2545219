"""ptxas registers/spills of the flash kernel for tile-attention option variants (no GPU).
python3 .gpu/s12/regs.py SEQ D CAUSAL "opts1" "opts2" ..."""
import subprocess, sys, tempfile, os, re, torch, torch.nn.functional as F
sys.path.insert(0, "bench")
from attention import Sdpa, variant_pipeline
from dpl.frontend import capture
from dpl.driver.compile import lower
from dpl.backend.cuda_printer import print_cuda
seq, d, causal = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1"
for opts in sys.argv[4:]:
    xs = [torch.randn(1, 28, seq, d) for _ in range(3)]
    prog = capture(Sdpa(causal), *xs, dtype=torch.float32)
    mod, _ = lower(prog, pipeline=variant_pipeline(opts))
    src = print_cuda(mod)
    with tempfile.TemporaryDirectory() as t:
        p = os.path.join(t, "k.cu")
        open(p, "w").write(src)
        if os.environ.get("KEEP"):
            open(f"/tmp/flash_{opts.replace(' ','_').replace('=','')}.cu", "w").write(src)
        sys.argv = ["x", p]
        exec(open(os.path.join(os.path.dirname(os.path.abspath(__file__)), 'nvrtc_local.py')).read().split('if __name__')[0], globals())
        st, log, _ = comp(["-arch=sm_90", "--std=c++17", "-Xptxas", "-v"])
        lines = [l for l in log.splitlines() if "registers" in l or "spill" in l]
        print(f"{opts:>28}: " + " | ".join(re.sub(r"ptxas info\s*:\s*", "", l).strip() for l in lines if "attention" in l or True)[:400])
