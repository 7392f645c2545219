#!/usr/bin/env bash
# call 3: the canary; top-k in blocks (held off merging) and quantile's parity on the GPU;
# quantile_clip (now exported) against eager and torch.compile
. scripts/gpu-env.sh
T=bench/results/session42/tools
timeout 40 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call3-canary.txt 2>&1; grep -A2 "^case" $OUT/call3-canary.txt
timeout 200 python3 -m pytest -q -m gpu tests/test_topk_blocked.py tests/test_frontend_ops_gpu.py -k "topk or quantile" -p no:cacheprovider > $OUT/call3-gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -3 $OUT/call3-gpu-tests.txt
timeout 120 python3 $T/ab42.py --cases quantile $OUT/call3-ab42.json > $OUT/call3-ab42.txt 2>&1; echo "ab42 rc=$?"
grep -v Warning $OUT/call3-ab42.txt | grep -v warnings.warn | tail -8
