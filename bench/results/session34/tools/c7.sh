#!/usr/bin/env bash
# call 7 (the final tree): unseen sweep seed 86; the GPU parity tests of every frontend op and
# end to end
. scripts/gpu-env.sh
timeout 190 python3 bench/sweep.py --seed 86 --modes eager,compile --budget-s 150 --target-ms 40 \
  --json $OUT/h200-2026-12-01-s34-seed86.json --out $OUT > $OUT/call7-sweep86.txt 2>&1
echo "sweep 86 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call7-sweep86.txt
rm -f $OUT/*.png
timeout 300 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py tests/test_e2e_gpu.py tests/test_attention.py -p no:cacheprovider 2>&1 | tail -3
