#!/usr/bin/env bash
# call 2: ordinary34 (31) and ordinary34b (24) on this session's tree against eager; the new
# kernels under memcheck and racecheck; the GPU tests of the pads, convolutions and scans
. scripts/gpu-env.sh
T=bench/results/session34/tools
timeout 200 python3 $T/ab34.py $OUT/call2-ordinary34.json > $OUT/call2-ordinary34.txt 2>&1; echo "o34 rc=$?"
grep -v Warning $OUT/call2-ordinary34.txt | grep -v warnings.warn | grep -A45 "^case"
timeout 200 python3 $T/ab34b.py $OUT/call2-ordinary34b.json > $OUT/call2-ordinary34b.txt 2>&1; echo "o34b rc=$?"
grep -v Warning $OUT/call2-ordinary34b.txt | grep -v warnings.warn | grep -A45 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 100 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 $T/sanitize34.py > $OUT/call2-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err " $OUT/call2-$tool.txt | tail -10
done
timeout 90 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "pad or conv or cum" -p no:cacheprovider 2>&1 | tail -3
