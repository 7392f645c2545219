#!/usr/bin/env bash
# call 5: seeds 42 and 53, every class, on the final tree (the two seeds of session 24 with a
# program below 0.8x eager: bmm_tn 32 x 509x983x64, matmul_tn 223x1481x960; linear + mean
# 128 x 704 -> 1152 0.67x in session 24's call 6)
. scripts/gpu-env.sh
for s in 42 53; do
  timeout 270 python3 bench/sweep.py --seed $s --modes eager,compile --budget-s 250 --target-ms 40 \
    --json $OUT/h200-2026-11-30-s25-seed$s.json --out $OUT > $OUT/call5-sweep$s.txt 2>&1
  echo "sweep $s rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call5-sweep$s.txt
  grep -E "linear_mean_128x704to1152|bmm_tn_b32_509x983x64|matmul_tn_223x1481x960" $OUT/call5-sweep$s.txt
done
rm -f $OUT/*.png
