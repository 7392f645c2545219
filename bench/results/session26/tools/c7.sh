#!/usr/bin/env bash
# call 7 (final tree): this session's schedules under compute-sanitizer memcheck and racecheck
# (sanitize26.py, now with a column of 7 merged); the norm schedule's GPU tests; unseen seed 64,
# every class
. scripts/gpu-env.sh
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  extra=(); [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  timeout 100 "$cs" --tool $tool --report-api-errors no --print-limit 20 "${extra[@]}" \
    python3 bench/results/session26/tools/sanitize26.py > $OUT/call7-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|kernels, err" $OUT/call7-$tool.txt | sort | uniq -c
done
timeout 90 python3 -m pytest -q -m gpu tests/test_norm_schedule.py tests/test_mma_gpu.py 2>&1 | tail -2 | tee $OUT/call7-gpu-tests.txt
timeout 200 python3 bench/sweep.py --seed 64 --modes eager,compile --budget-s 180 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s26-seed64.json --out $OUT > $OUT/call7-sweep64.txt 2>&1
echo "sweep 64 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call7-sweep64.txt
rm -f $OUT/*.png
