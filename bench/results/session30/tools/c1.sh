#!/usr/bin/env bash
# call 1: session 29's left check (the suite's decoder layers, session 28's split rule against the
# tree: ab29t.py), then unseen seed 73, every class
. scripts/gpu-env.sh
timeout 300 python3 bench/results/session29/tools/ab29t.py _layer_ $OUT/call1-layers.json > $OUT/call1-layers.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call1-layers.txt | grep -v warnings.warn | grep -A8 "^case"
timeout 200 python3 bench/sweep.py --seed 73 --modes eager,compile --budget-s 150 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s30-seed73.json --out $OUT > $OUT/call1-sweep73.txt 2>&1
echo "sweep 73 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call1-sweep73.txt
rm -f $OUT/*.png
