#!/usr/bin/env bash
# call 3: windows a thread per output and top-k by rounds against their old schedules; the new
# kernels under memcheck and racecheck; the GPU tests of the frontend's sorts, scans, top-k,
# convolutions and pools, end to end and of the runtime
. scripts/gpu-env.sh
T=bench/results/session33/tools
timeout 200 python3 $T/ab33w.py $OUT/call3-ab.json > $OUT/call3-ab.txt 2>&1; echo "ab rc=$?"
grep -v Warning $OUT/call3-ab.txt | grep -v warnings.warn | grep -E -A12 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 110 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 $T/sanitize33.py > $OUT/call3-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err " $OUT/call3-$tool.txt | tail -10
done
timeout 120 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py tests/test_e2e_gpu.py tests/test_runtime_gpu.py \
  -k "topk or sort or cum or conv or pool or kth or median or scatter or e2e or runtime or program" -p no:cacheprovider 2>&1 | tail -3
