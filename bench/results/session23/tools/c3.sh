#!/usr/bin/env bash
# call 3 (final code): merged column reductions under compute-sanitizer; the norm tests on the
# GPU; unseen seed 49, every class; the reduce, norm and softmax classes of seeds 40 (its amax
# over dim 0 of 128 x 128 x 487 x 3 ran 0.31x) and 43 (amax over dim 1 of 71 x 79 x 128 x 5)
. scripts/gpu-env.sh
T=bench/results/session23/tools
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = memcheck ] && extra="--report-api-errors no"
  timeout 70 compute-sanitizer --tool $tool $extra python3 $T/san23.py 2>&1 | grep -v -i warn | tail -4 | tee -a $OUT/call3-san23.txt
done
timeout 100 python3 -m pytest -q -m gpu tests/test_norm_schedule.py 2>&1 | tail -3 | tee $OUT/call3-norm-gpu.txt
for s in 49; do
  timeout 200 python3 bench/sweep.py --seed $s --modes eager,compile --budget-s 170 --target-ms 40 \
    --json $OUT/h200-2026-11-29-s23-seed$s.json --out $OUT > $OUT/call3-sweep$s.txt 2>&1
  echo "sweep $s rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call3-sweep$s.txt
done
for s in 40 43; do
  timeout 70 python3 bench/sweep.py --seed $s --classes reduce,norm,softmax --modes eager,compile --budget-s 55 --target-ms 40 \
    --json $OUT/h200-2026-11-29-s23-seed$s-rns.json --out $OUT > $OUT/call3-sweep$s-rns.txt 2>&1
  echo "sweep $s reduce/norm/softmax rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call3-sweep$s-rns.txt
done
