#!/usr/bin/env bash
# call 4 (the final tree): the GPU tests of the kernels the session changed (fused tails through
# the frontend ops and the cleanup passes' lit cases), the SASS lead (sass31.sh), unseen seed 78
. scripts/gpu-env.sh
timeout 220 python3 -m pytest -q -m gpu tests/test_kernel_cleanups.py tests/test_frontend_ops_gpu.py tests/test_reliability_gpu.py \
  -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/call4-gpu-tests.txt
timeout 60 bash bench/results/session31/tools/sass31.sh > $OUT/call4-sass.txt 2>&1; echo "sass rc=$?"; cat $OUT/call4-sass.txt | tail -12
timeout 200 python3 bench/sweep.py --seed 78 --modes eager,compile --budget-s 160 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s31-seed78.json --out $OUT > $OUT/call4-sweep78.txt 2>&1
echo "sweep 78 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call4-sweep78.txt
rm -f $OUT/*.png
