#!/usr/bin/env bash
# call 4: seed 45 again on the final code (its 0.63x column sum changed) and unseen seed 46, every class
. scripts/gpu-env.sh
for s in 45 46; do
  timeout 290 python3 bench/sweep.py --seed $s --modes eager,compile --budget-s 235 --target-ms 40 \
    --json $OUT/h200-2026-11-29-s22-seed$s-final.json --out $OUT > $OUT/call4-sweep$s.txt 2>&1
  echo "sweep $s rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call4-sweep$s.txt
done
