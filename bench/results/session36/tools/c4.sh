#!/usr/bin/env bash
# call 4 (the final tree): the canary; unseen sweep seed 91; session 34's 55 ordinary programs
. scripts/gpu-env.sh
timeout 60 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call4-canary.txt 2>&1; grep -A2 "^case" $OUT/call4-canary.txt
timeout 240 python3 bench/sweep.py --seed 91 --modes eager,compile --budget-s 170 --target-ms 40 \
  --json $OUT/h200-2026-12-01-s36-seed91.json --out $OUT > $OUT/call4-sweep91.txt 2>&1
echo "sweep 91 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call4-sweep91.txt
rm -f $OUT/*.png
timeout 240 python3 bench/results/session34/tools/ab34all.py $OUT/call4-ordinary.json > $OUT/call4-ordinary.txt 2>&1; echo "ord rc=$?"
grep -v Warning $OUT/call4-ordinary.txt | grep -v warnings.warn | grep -A58 "^case"
