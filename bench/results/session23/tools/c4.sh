#!/usr/bin/env bash
# call 4: few-row lanes A/B; the reduce, norm and softmax classes of seeds 44, 46, 48 and 49 and
# unseen seed 50, every class, on the code with merge-columns
. scripts/gpu-env.sh
T=bench/results/session23/tools
timeout 150 python3 $T/fewab23.py $OUT/call4-fewab.json 2>&1 | grep -v -i warn > $OUT/call4-fewab.txt
echo "fewab rc=$?"; tail -22 $OUT/call4-fewab.txt
for s in 44 46 48 49; do
  timeout 60 python3 bench/sweep.py --seed $s --classes reduce,norm,softmax --modes eager,compile --budget-s 45 --target-ms 40 \
    --json $OUT/h200-2026-11-29-s23-seed$s-rns.json --out $OUT > $OUT/call4-sweep$s-rns.txt 2>&1
  echo "sweep $s reduce/norm/softmax rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call4-sweep$s-rns.txt
done
timeout 170 python3 bench/sweep.py --seed 50 --modes eager,compile --budget-s 150 --target-ms 40 \
  --json $OUT/h200-2026-11-29-s23-seed50.json --out $OUT > $OUT/call4-sweep50.txt 2>&1
echo "sweep 50 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call4-sweep50.txt
rm -f $OUT/*.png
