#!/usr/bin/env bash
# call 1: two unseen seeds' sweeps, every class, on the tree as session 22 left it (2bdf269), and
# every candidate of the short-K matmul that stayed below 0.8x (2560 x 1152 x 63)
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for s in 47 48; do
  timeout 290 python3 bench/sweep.py --seed $s --modes eager,compile --budget-s 235 --target-ms 40 \
    --json $OUT/h200-2026-11-29-s23-seed$s.json --out $OUT > $OUT/call1-sweep$s.txt 2>&1
  echo "sweep $s rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call1-sweep$s.txt
done
timeout 200 python3 bench/mma_candidates.py --shapes 2560x1152x63,2560x1152x127 --simt 2x8,4x4,4x4@64 --out $OUT > $OUT/call1-shortk.txt 2>&1
echo "shortk rc=$?"; tail -40 $OUT/call1-shortk.txt
