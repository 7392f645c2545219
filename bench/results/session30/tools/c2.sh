#!/usr/bin/env bash
# call 2: the session's new kernels under compute-sanitizer memcheck and racecheck
# (sanitize30.py), then the norms the changes alter, A/B'd (ab30n.py)
. scripts/gpu-env.sh
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  extra=(); [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  timeout 70 "$cs" --tool $tool --report-api-errors no --print-limit 20 "${extra[@]}" \
    python3 bench/results/session30/tools/sanitize30.py > "$OUT/call2-$tool.txt" 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|kernels, err" "$OUT/call2-$tool.txt" | sort | uniq -c
done
timeout 400 python3 bench/results/session30/tools/ab30n.py bench/results/session30/changed.txt $OUT/call2-norms.json > $OUT/call2-norms.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call2-norms.txt | grep -v warnings.warn | grep -A40 "^case"
