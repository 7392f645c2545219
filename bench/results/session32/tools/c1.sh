#!/usr/bin/env bash
# call 1: ordinary programs outside the sweep (probe32.py); the kernels of sessions 2 and 31 under
# memcheck, racecheck and synccheck now that buffers are __restrict__ (sanitize32.py)
. scripts/gpu-env.sh
T=bench/results/session32/tools
timeout 300 python3 $T/probe32.py $OUT/call1-probe.json > $OUT/call1-probe.txt 2>&1; echo "probe rc=$?"
grep -v Warning $OUT/call1-probe.txt | grep -v warnings.warn | grep -A40 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck synccheck; do
  timeout 80 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 $T/sanitize32.py > $OUT/call1-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|kernels, err" $OUT/call1-$tool.txt | tail -15
done
