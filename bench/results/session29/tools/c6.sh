#!/usr/bin/env bash
# call 6 (the final tree): wgmma tiles 32 wide for a thin N under compute-sanitizer memcheck and
# racecheck (sanitize29b.py), then unseen seed 72, every class, in what device time is left
. scripts/gpu-env.sh
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  extra=(); [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  timeout 45 "$cs" --tool $tool --report-api-errors no --print-limit 20 "${extra[@]}" \
    python3 bench/results/session29/tools/sanitize29b.py > "$OUT/call6-$tool.txt" 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|kernels, err" "$OUT/call6-$tool.txt" | sort | uniq -c
done
timeout 175 python3 bench/sweep.py --seed 72 --modes eager,compile --budget-s 140 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s29-seed72.json --out $OUT > $OUT/call6-sweep72.txt 2>&1
echo "sweep 72 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call6-sweep72.txt
rm -f $OUT/*.png
