#!/usr/bin/env bash
# call 2 (the final tree): the canary; the GPU tests this session touches (top-k in blocks,
# 64-bit integer atomic adds, the frontend ops' GPU parity); top-k in blocks under memcheck;
# topk39's programs (blocks only) against eager and torch.compile
. scripts/gpu-env.sh
T=bench/results/session39/tools
timeout 50 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call2-canary.txt 2>&1; grep -A2 "^case" $OUT/call2-canary.txt
timeout 240 python3 -m pytest -q -m gpu tests/test_topk_blocked.py tests/test_atomic_gpu.py tests/test_frontend_ops_gpu.py -p no:cacheprovider > $OUT/call2-gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -3 $OUT/call2-gpu-tests.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 90 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize39.py > $OUT/call2-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err |Error" $OUT/call2-memcheck.txt | tail -8
timeout 180 python3 $T/ab39.py --no-box $OUT/call2-ab39.json > $OUT/call2-ab39.txt 2>&1; echo "ab39 rc=$?"
grep -v Warning $OUT/call2-ab39.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean|^case" | tail -12
