#!/usr/bin/env bash
# call 6: short packed rows on the fewest lanes against the most (ab27r.py)
. scripts/gpu-env.sh
D=bench/results/session27
timeout 280 python3 $D/tools/ab27r.py $D/shortrows.txt $OUT/call6-rows.json > $OUT/call6-rows.txt 2>&1
echo "rows rc=$?"; grep geomean $OUT/call6-rows.txt
