#!/usr/bin/env bash
# call 4: a second batch of ordinary programs (ordinary33b) against eager; sanitize33's last
# three cases under memcheck and racecheck
. scripts/gpu-env.sh
T=bench/results/session33/tools
timeout 200 python3 $T/ab33ob.py $OUT/call4-ordinary33b.json > $OUT/call4-ordinary33b.txt 2>&1; echo "o33b rc=$?"
grep -v Warning $OUT/call4-ordinary33b.txt | grep -v warnings.warn | grep -A30 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 80 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 $T/sanitize33b.py > $OUT/call4-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err |Error" $OUT/call4-$tool.txt | tail -6
done
