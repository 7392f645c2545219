#!/usr/bin/env bash
# call 7 (the final tree): the GPU tests of the pointwise, reliability and runtime areas, then
# unseen seed 76, every class
. scripts/gpu-env.sh
timeout 200 python3 -m pytest -q -m gpu tests/test_reliability_gpu.py tests/test_frontend_ops_gpu.py \
  tests/test_kernel_cleanups.py tests/test_runtime_gpu.py tests/test_repack_gpu.py -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/call7-gpu-tests.txt
timeout 220 python3 bench/sweep.py --seed 76 --modes eager,compile --budget-s 170 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s30-seed76.json --out $OUT > $OUT/call7-sweep76.txt 2>&1
echo "sweep 76 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call7-sweep76.txt
rm -f $OUT/*.png
