#!/usr/bin/env bash
# call 3: the cases the session's fixes reach (wav2vec2's GroupNorm, axial einsum attention,
# CenterNet's top-k) against eager and torch.compile; the radix top-k's digit width; GPU parity
# of top-k and norms; memcheck of the new kernels
. scripts/gpu-env.sh
T=bench/results/session48/tools
timeout 130 python3 $T/ab48.py --cases "w2v|axial|centernet" $OUT/call3-ab48.json > $OUT/call3-ab48.txt 2>&1; echo "ab48 rc=$?"
grep -v Warning $OUT/call3-ab48.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean" | tail -8
timeout 170 python3 $T/topk48b.py 1,2,4 > $OUT/call3-topk48b.txt 2>&1; echo "topk48b rc=$?"; grep -E "^\(" $OUT/call3-topk48b.txt
timeout 80 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "topk or group_norm or layer_norm" -p no:cacheprovider > $OUT/call3-gpu-ops.txt 2>&1; echo "gpu ops rc=$?"; tail -2 $OUT/call3-gpu-ops.txt; grep FAILED $OUT/call3-gpu-ops.txt | head
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 90 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize48b.py > $OUT/call3-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err " $OUT/call3-memcheck.txt | tail -5
