#!/usr/bin/env bash
# Prepared in session 49 and NOT RUN (the session had no device time left): the canary; the
# convolution's GEMM against the same GEMM as a matmul (conv49.py); eager's conv with cuDNN's
# TF32 off; unseen sweep seed 92; histc's GPU case. For a later session's first call.
. scripts/gpu-env.sh
T=bench/results/session49/tools
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call1-canary.txt 2>&1; grep -A2 "^case" $OUT/call1-canary.txt
timeout 120 python3 $T/conv49.py prof > $OUT/call1-conv-prof.txt 2>&1; echo "prof rc=$?"; grep -v -i warn $OUT/call1-conv-prof.txt | tail -14
timeout 120 python3 $T/conv49.py ab $OUT/call1-conv-ab.json > $OUT/call1-conv-ab.txt 2>&1; echo "ab rc=$?"; grep -E "^[a-z_0-9]+ |geomean" $OUT/call1-conv-ab.txt | tail -10
timeout 60 python3 - > $OUT/call1-conv-fp32.txt 2>&1 <<'PY'
import torch
from dpl.bench import harness as B
torch.backends.cudnn.allow_tf32 = False
for c, hw, b in ((256, 64, 4), (64, 56, 8)):
    m = torch.nn.Conv2d(c, c, 3, padding=1).cuda()
    x = torch.randn(b, c, hw, hw, device="cuda")
    with torch.no_grad():
        t = B.gpu_time(lambda: m(x), [()], replays=50, warmup=5, graph=True)
    fl = 2 * b * hw * hw * c * c * 9
    print(f"eager fp32 conv3x3 {b}x{c}x{hw}x{hw}: {t['median_ms']:.4f} ms, {fl / t['median_ms'] / 1e9:.1f} TFLOP/s")
PY
cat $OUT/call1-conv-fp32.txt | tail -3
timeout 230 python3 bench/sweep.py --seed 92 --modes eager,compile --budget-s 190 --target-ms 40 \
  --json $OUT/h200-2026-12-05-s49-seed92.json --out $OUT > $OUT/call1-sweep92.txt 2>&1
echo "sweep 92 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call1-sweep92.txt | tail -8
timeout 60 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "histc" > $OUT/call1-gpu-tests.txt 2>&1; tail -2 $OUT/call1-gpu-tests.txt
