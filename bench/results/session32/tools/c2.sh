#!/usr/bin/env bash
# call 2: collapse-matmul-axes A/B on the ordinary programs it changes (ab32.py); its kernels
# under memcheck and racecheck (sanitize32c.py)
. scripts/gpu-env.sh
T=bench/results/session32/tools
timeout 360 python3 $T/ab32.py $OUT/call2-collapse.json > $OUT/call2-collapse.txt 2>&1; echo "ab rc=$?"
grep -v Warning $OUT/call2-collapse.txt | grep -v warnings.warn | grep -A30 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 100 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 $T/sanitize32c.py > $OUT/call2-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|kernels, err" $OUT/call2-$tool.txt | tail -8
done
