#!/usr/bin/env bash
# call 1: issue 13's sweeps, every class, on one tree (4898865): seed 0 and unseen seed 41
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
for s in 0 41; do
  timeout 285 python3 bench/sweep.py --seed $s --modes eager,compile --budget-s 240 --target-ms 40 \
    --json $OUT/h200-2026-11-29-s20-seed$s.json --out $OUT > $OUT/call1-sweep$s.txt 2>&1
  echo "sweep $s rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call1-sweep$s.txt
done
