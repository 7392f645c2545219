#!/usr/bin/env bash
# call 2: the tree's column-norm lanes, max-column-reduce 512 and split-reduce floor against the
# rules before them on 87 held-out sweep programs (ab27v.py); the new schedules under
# compute-sanitizer (sanitize27.py); unseen seed 65, every class, on the tree
. scripts/gpu-env.sh
D=bench/results/session27
timeout 250 python3 $D/tools/ab27v.py $D/heldout.txt $OUT/call2-heldout.json > $OUT/call2-heldout.txt 2>&1
echo "ab rc=$?"; grep geomean $OUT/call2-heldout.txt
bash $D/tools/sanitize27.sh call2 80
timeout 170 python3 bench/sweep.py --seed 65 --modes eager,compile --budget-s 150 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s27-seed65.json --out $OUT > $OUT/call2-sweep65.txt 2>&1
echo "sweep 65 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call2-sweep65.txt
rm -f $OUT/*.png
