#!/usr/bin/env bash
# call 3: in-launch tails A/B (ab31.py tail on tailsample.txt), their fused kernels under memcheck and
# racecheck (sanitize31t.py), the GPU tests of the areas the session changed, then unseen seed 77
. scripts/gpu-env.sh
timeout 200 python3 bench/results/session31/tools/ab31.py tail bench/results/session31/tailsample.txt $OUT/call3-tail.json > $OUT/call3-tail.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call3-tail.txt | grep -v warnings.warn | grep -A60 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 60 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 bench/results/session31/tools/sanitize31t.py > $OUT/call3-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|kernels, err" $OUT/call3-$tool.txt
done
timeout 120 python3 -m pytest -q -m gpu tests/test_norm_schedule.py tests/test_hold_rows.py tests/test_e2e_gpu.py \
  tests/test_runtime_gpu.py -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/call3-gpu-tests.txt
timeout 190 python3 bench/sweep.py --seed 77 --modes eager,compile --budget-s 150 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s31-seed77.json --out $OUT > $OUT/call3-sweep77.txt 2>&1
echo "sweep 77 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call3-sweep77.txt
rm -f $OUT/*.png
