#!/usr/bin/env bash
# call 3: the norms the changes alter with chunk-variance's second rule (ab30n.py), then unseen
# seed 74, every class
. scripts/gpu-env.sh
timeout 250 python3 bench/results/session30/tools/ab30n.py bench/results/session30/changed.txt $OUT/call3-norms.json > $OUT/call3-norms.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call3-norms.txt | grep -v warnings.warn | grep -A40 "^case"
timeout 220 python3 bench/sweep.py --seed 74 --modes eager,compile --budget-s 170 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s30-seed74.json --out $OUT > $OUT/call3-sweep74.txt 2>&1
echo "sweep 74 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call3-sweep74.txt
rm -f $OUT/*.png
