#!/usr/bin/env bash
# call 4: the race's SIMT entrant by the wave model (ab29r.py) on the sweep matmuls it changes
# among seeds 64-100, then unseen seed 71, every class, with it (the variant: race-variant.patch,
# applied to the tree of call 4; not kept)
. scripts/gpu-env.sh
D=bench/results/session29
timeout 330 python3 $D/tools/ab29r.py $D/racechanged.txt $OUT/call4-race.json > $OUT/call4-race.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call4-race.txt | grep -v warnings.warn | grep -A200 "^case"
timeout 200 python3 bench/sweep.py --seed 71 --modes eager,compile --budget-s 170 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s29-seed71.json --out $OUT > $OUT/call4-sweep71.txt 2>&1
echo "sweep 71 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call4-sweep71.txt
rm -f $OUT/*.png
