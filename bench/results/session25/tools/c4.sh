#!/usr/bin/env bash
# call 4: repack-operands taken up to a modeled share of 0.95 / 1.0 against 0.89, over the 24 sweep
# programs 1.0 changes (repackab25.py); then unseen seed 59, every class, on the wave tree
. scripts/gpu-env.sh
timeout 290 python3 bench/results/session25/tools/repackab25.py $OUT/call4-repackab.json > $OUT/call4-repackab.txt 2>&1
echo "ab rc=$?"; tail -30 $OUT/call4-repackab.txt
timeout 230 python3 bench/sweep.py --seed 59 --modes eager,compile --budget-s 200 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s25-seed59.json --out $OUT > $OUT/call4-sweep59.txt 2>&1
echo "sweep 59 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call4-sweep59.txt
rm -f $OUT/*.png
