#!/usr/bin/env bash
# call 6 (the final tree, with __restrict__): the GPU tests of the frontend ops (every op through
# the printer) and of the cleanup passes' lit cases, then unseen seed 80
. scripts/gpu-env.sh
timeout 200 python3 -m pytest -q -m gpu tests/test_kernel_cleanups.py tests/test_frontend_ops_gpu.py \
  -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/call6-gpu-tests.txt
timeout 185 python3 bench/sweep.py --seed 80 --modes eager,compile --budget-s 125 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s31-seed80.json --out $OUT > $OUT/call6-sweep80.txt 2>&1
echo "sweep 80 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call6-sweep80.txt
rm -f $OUT/*.png
