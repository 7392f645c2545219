#!/usr/bin/env bash
# call 2: the sparse and displaced splits under compute-sanitizer (sanitize29.py; memcheck,
# racecheck, synccheck), the GPU tests of the matmul schedule, and unseen seed 70, every class
. scripts/gpu-env.sh
bash bench/results/session27/tools/sanitize27.sh call2 50 bench/results/session29/tools/sanitize29.py
timeout 150 python3 -m pytest -q -m gpu tests/test_mma_gpu.py tests/test_e2e_gpu.py tests/test_repack_gpu.py \
  -p no:cacheprovider 2>&1 | tail -5 | tee $OUT/call2-gpu-tests.txt
timeout 200 python3 bench/sweep.py --seed 70 --modes eager,compile --budget-s 170 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s29-seed70.json --out $OUT > $OUT/call2-sweep70.txt 2>&1
echo "sweep 70 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call2-sweep70.txt
rm -f $OUT/*.png
