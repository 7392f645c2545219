#!/usr/bin/env bash
# call 6: sanitize33c's one-hot (its reference had mixed dtypes in call 5) under memcheck and racecheck
. scripts/gpu-env.sh
T=bench/results/session33/tools
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 70 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 $T/sanitize33c.py > $OUT/call6-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err |Error" $OUT/call6-$tool.txt | tail -6
done
