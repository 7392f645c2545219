#!/usr/bin/env bash
# call 5: this session's schedules under compute-sanitizer (sanitize26.py); the race against the
# old models on 10 common projection shapes it changes (raceab26.py --common); the tensor-core GPU
# tests; unseen seed 63, every class, on the final tree
. scripts/gpu-env.sh
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck synccheck; do
  extra=(); [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  timeout 90 "$cs" --tool $tool --report-api-errors no --print-limit 20 "${extra[@]}" \
    python3 bench/results/session26/tools/sanitize26.py > $OUT/call5-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|kernels, err" $OUT/call5-$tool.txt | sort | uniq -c
done
timeout 100 python3 bench/results/session26/tools/raceab26.py --common $OUT/call5-raceab-common.json > $OUT/call5-raceab-common.txt 2>&1
echo "ab rc=$?"; tail -14 $OUT/call5-raceab-common.txt
timeout 60 python3 -m pytest -q -m gpu tests/test_mma_gpu.py -x 2>&1 | tail -2 | tee $OUT/call5-mma-gpu.txt
timeout 160 python3 bench/sweep.py --seed 63 --modes eager,compile --budget-s 140 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s26-seed63.json --out $OUT > $OUT/call5-sweep63.txt 2>&1
echo "sweep 63 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call5-sweep63.txt
rm -f $OUT/*.png
