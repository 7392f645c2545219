#!/usr/bin/env bash
# call 6: sanitize34c again (its bucketize reference made its boundaries on the CPU in call 5)
. scripts/gpu-env.sh
T=bench/results/session34/tools
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 80 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 $T/sanitize34c.py > $OUT/call6-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err |Error" $OUT/call6-$tool.txt | tail -10
done
