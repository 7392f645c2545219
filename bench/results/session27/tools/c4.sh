#!/usr/bin/env bash
# call 4: how far to fuse column norms now that long columns are held on up to 32 lanes
# (ab27x.py); this session's schedules under compute-sanitizer (sanitize27.py); unseen seed 66,
# every class, on the tree
. scripts/gpu-env.sh
D=bench/results/session27
timeout 260 python3 $D/tools/ab27x.py $D/fuselist.txt $OUT/call4-reach.json > $OUT/call4-reach.txt 2>&1
echo "reach rc=$?"; grep geomean $OUT/call4-reach.txt
bash $D/tools/sanitize27.sh call4 90
timeout 170 python3 bench/sweep.py --seed 66 --modes eager,compile --budget-s 150 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s27-seed66.json --out $OUT > $OUT/call4-sweep66.txt 2>&1
echo "sweep 66 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call4-sweep66.txt
rm -f $OUT/*.png
