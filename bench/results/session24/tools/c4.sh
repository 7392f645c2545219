#!/usr/bin/env bash
# call 4 (final code): the ratio-1.33 programs under the final plan; seed 48 (its bmm nt
# 16 x 128x1491x113 ran 0.73x in session 23) and unseen seed 53, every class
. scripts/gpu-env.sh
T=bench/results/session24/tools
timeout 80 python3 $T/rows133.py $OUT/call4-rows133.json 2>&1 | grep -v -i warn > $OUT/call4-rows133.txt
echo "rows133 rc=$?"; tail -10 $OUT/call4-rows133.txt
for s in 48 53; do
  timeout 200 python3 bench/sweep.py --seed $s --modes eager,compile --budget-s 170 --target-ms 40 \
    --json $OUT/h200-2026-11-29-s24-seed$s.json --out $OUT > $OUT/call4-sweep$s.txt 2>&1
  echo "sweep $s rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call4-sweep$s.txt
done
rm -f $OUT/*.png
