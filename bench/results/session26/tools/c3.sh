#!/usr/bin/env bash
# call 3: the race's final form (thin and short-K gates) against the old models over the 20
# programs of unseen seeds 62-73 it changes and two lit shapes it moves to SIMT (raceab26.py
# --heldout); then unseen seed 62, every class, on the new tree
. scripts/gpu-env.sh
timeout 200 python3 bench/results/session26/tools/raceab26.py --heldout $OUT/call3-raceab-heldout.json > $OUT/call3-raceab-heldout.txt 2>&1
echo "ab rc=$?"; tail -26 $OUT/call3-raceab-heldout.txt
timeout 230 python3 bench/sweep.py --seed 62 --modes eager,compile --budget-s 210 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s26-seed62.json --out $OUT > $OUT/call3-sweep62.txt 2>&1
echo "sweep 62 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call3-sweep62.txt
rm -f $OUT/*.png
