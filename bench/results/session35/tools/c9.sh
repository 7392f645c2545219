#!/usr/bin/env bash
# call 9 (the final tree): the canary, and unseen sweep seed 90
cd .s35 && . scripts/gpu-env.sh
T=bench/results/session35/tools
timeout 60 python3 $T/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call9-canary.txt 2>&1; grep -A2 "^case" $OUT/call9-canary.txt
timeout 230 python3 bench/sweep.py --seed 90 --modes eager,compile --budget-s 170 --target-ms 40 \
  --json $OUT/h200-2026-12-01-s35-seed90.json --out $OUT > $OUT/call9-sweep90.txt 2>&1
echo "sweep 90 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call9-sweep90.txt
rm -f $OUT/*.png
