#!/usr/bin/env bash
# call 6: the GPU tests of the areas this session changed (packed rows, vectorize-access, float
# atomics; with session 27's list), and unseen seed 69, every class, on the final tree
. scripts/gpu-env.sh
timeout 280 python3 -m pytest -q -m gpu tests/test_atomic_gpu.py tests/test_norm_schedule.py tests/test_hold_rows.py \
  tests/test_e2e_gpu.py tests/test_reliability_gpu.py tests/test_frontend_ops_gpu.py \
  tests/test_kernel_cleanups.py tests/test_runtime_gpu.py -p no:cacheprovider 2>&1 | tail -5 | tee $OUT/call6-gpu-tests.txt
timeout 200 python3 bench/sweep.py --seed 69 --modes eager,compile --budget-s 170 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s28-seed69.json --out $OUT > $OUT/call6-sweep69.txt 2>&1
echo "sweep 69 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call6-sweep69.txt
rm -f $OUT/*.png
