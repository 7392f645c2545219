#!/usr/bin/env bash
# call 1: two unseen seeds' sweeps, every class, on the tree as session 21 left it: where are the cliffs now?
. scripts/gpu-env.sh
for s in 44 45; do
  timeout 290 python3 bench/sweep.py --seed $s --modes eager,compile --budget-s 235 --target-ms 40 \
    --json $OUT/h200-2026-11-29-s22-seed$s.json --out $OUT > $OUT/call1-sweep$s.txt 2>&1
  echo "sweep $s rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call1-sweep$s.txt
done
