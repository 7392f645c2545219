#!/usr/bin/env bash
# call 2: merge-dims A/B (ab31.py merge on mergesample.txt), its kernels under memcheck and racecheck
# (sanitize31.py)
. scripts/gpu-env.sh
timeout 330 python3 bench/results/session31/tools/ab31.py merge bench/results/session31/mergesample.txt $OUT/call2-merge.json > $OUT/call2-merge.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call2-merge.txt | grep -v warnings.warn | grep -A60 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 90 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 bench/results/session31/tools/sanitize31.py > $OUT/call2-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|kernels, err" $OUT/call2-$tool.txt
done
