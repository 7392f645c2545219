#!/usr/bin/env bash
# call 6 (the final tree): order-blocks A/B (ab30o.py), its reordered grid under memcheck
# (sanitize30b.py), the GPU tests of the areas the session changed, then unseen seed 75
. scripts/gpu-env.sh
timeout 150 python3 bench/results/session30/tools/ab30o.py bench/results/session30/orderchanged.txt $OUT/call6-order.json > $OUT/call6-order.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call6-order.txt | grep -v warnings.warn | grep -A20 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 60 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 bench/results/session30/tools/sanitize30b.py > $OUT/call6-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|kernels, err" $OUT/call6-memcheck.txt
timeout 150 python3 -m pytest -q -m gpu tests/test_norm_schedule.py tests/test_hold_rows.py tests/test_atomic_gpu.py \
  tests/test_e2e_gpu.py -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/call6-gpu-tests.txt
timeout 200 python3 bench/sweep.py --seed 75 --modes eager,compile --budget-s 160 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s30-seed75.json --out $OUT > $OUT/call6-sweep75.txt 2>&1
echo "sweep 75 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call6-sweep75.txt
rm -f $OUT/*.png
