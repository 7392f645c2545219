"""Session 32 (device): ordinary programs outside the sweep's classes (ordinary32.CASES) timed
as the sweep times them (dpl, eager, torch.compile; error against float64), then eager again
with cuDNN's TF32 off (PyTorch's default lets convolutions run in TF32; matmuls do not).

    python3 bench/results/session32/tools/probe32.py [JSON]"""
import json
import sys

import torch

sys.path.insert(0, "bench/results/session32/tools")
from ordinary32 import CASES  # noqa: E402
from dpl.bench import harness as B  # noqa: E402
from dpl.bench.ab import report, time_variants  # noqa: E402

out = sys.argv[1] if len(sys.argv) > 1 else None
rows = time_variants(CASES, {"dpl": None}, "eager", 20.0, 34)
report(rows, ["dpl"], "eager", 34, out)
report(rows, ["dpl"], "compile", 34, None)
print("eager with cudnn.allow_tf32 = False (convolutions):")
torch.backends.cudnn.allow_tf32 = False
for case, row in zip(CASES, rows):
    if case.cls != "conv":
        continue
    fn, inputs = case.build("cuda")
    res = B.benchmark(case.name, fn, inputs, dpl=False, modes=("eager",), ceilings=False, target_ms=20.0)
    e = res["variants"]["eager"]
    row["eager_fp32"] = e.get("median_ms")
    d = row["dpl"]["median_ms"]
    print(f"{case.name:34s} eager tf32 {row['eager']:.4f}  eager fp32 {e.get('median_ms'):.4f} (err64 {e.get('err64'):.1e})"
          f"  dpl {d:.4f}  x{e.get('median_ms') / d:.2f} of fp32 eager", flush=True)
if out:
    json.dump(rows, open(out, "w"), indent=1)
