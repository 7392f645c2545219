"""Session 40: every ordinary40 program compiled on the host (on the CPU device: buffers drawn at random need values; nvcc), no GPU:
    python3 bench/results/session40/tools/host40.py [REGEX]"""
import re
import sys

sys.path.insert(0, "bench/results/session40/tools")
from ordinary40 import CASES  # noqa: E402
import sweep  # noqa: E402

_build = sweep.SweepCase.build
sweep.SweepCase.build = lambda self, device: _build(self, "cpu")  # buffers drawn at random need values

pat = sys.argv[1] if len(sys.argv) > 1 else ""
for case in CASES:
    if not re.search(pat, case.name):
        continue
    res = sweep.compile_case(case, nvcc=True)
    status = "ERROR " + res["error"] if "error" in res else (
        "nvcc: " + res["nvcc_error"] if res.get("nvcc_error") else "ok")
    print(f"== {case.name} ({res['compile_s']:.1f} s): {status}", flush=True)
    for k in res.get("kernels", []):
        print("   " + sweep._kernel_text(k), flush=True)
    for fl in res.get("flags", []):
        print("   FLAG " + fl, flush=True)
