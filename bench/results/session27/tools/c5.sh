#!/usr/bin/env bash
# call 5: unseen seed 67, every class, on the final tree (column norms fused up to 1024 channels,
# long columns held from 16 trips)
. scripts/gpu-env.sh
timeout 200 python3 bench/sweep.py --seed 67 --modes eager,compile --budget-s 170 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s27-seed67.json --out $OUT > $OUT/call5-sweep67.txt 2>&1
echo "sweep 67 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call5-sweep67.txt
rm -f $OUT/*.png
