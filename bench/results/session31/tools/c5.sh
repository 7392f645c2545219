#!/usr/bin/env bash
# call 5: __restrict__ buffer parameters A/B (ab31.py restrict on the first 45 programs of seed 79), and
# the SASS lead again with them (sass31.sh)
. scripts/gpu-env.sh
timeout 60 bash bench/results/session31/tools/sass31.sh > $OUT/call5-sass.txt 2>&1; echo "sass rc=$?"; head -8 $OUT/call5-sass.txt
timeout 450 python3 bench/results/session31/tools/ab31.py restrict bench/results/session31/restrictcases.txt $OUT/call5-restrict.json > $OUT/call5-restrict.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call5-restrict.txt | grep -v warnings.warn | grep -A70 "^case"
