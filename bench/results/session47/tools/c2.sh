#!/usr/bin/env bash
# call 2: the det failure as a GPU test; the A/B of arithmetic as written against NVRTC's contraction on session 46's 54 cases; the canary
. scripts/gpu-env.sh
T=bench/results/session47/tools
timeout 60 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "two_kernels or linalg_inv_det" -p no:cacheprovider > $OUT/call2-det.txt 2>&1; echo "det test rc=$?"; tail -2 $OUT/call2-det.txt; grep -A3 FAILED $OUT/call2-det.txt | head
timeout 360 python3 $T/fma47.py $OUT/call2-fma47.json > $OUT/call2-fma47.txt 2>&1; echo "fma47 rc=$?"
grep -v Warning $OUT/call2-fma47.txt | grep -v warnings.warn | grep -E "^[a-zA-Z_0-9.-]+ |geomean|^case" | tail -57
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call2-canary.txt 2>&1; grep -A2 "^case" $OUT/call2-canary.txt
