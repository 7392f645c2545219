#!/usr/bin/env bash
# call 7: unseen seeds 60 and 61, every class, on the final tree
. scripts/gpu-env.sh
for s in 60 61; do
  timeout 215 python3 bench/sweep.py --seed $s --modes eager,compile --budget-s 185 --target-ms 40 \
    --json $OUT/h200-2026-11-30-s25-seed$s.json --out $OUT > $OUT/call7-sweep$s.txt 2>&1
  echo "sweep $s rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call7-sweep$s.txt
done
rm -f $OUT/*.png
