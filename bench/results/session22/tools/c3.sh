#!/usr/bin/env bash
# call 3: the new column-reduction launches under compute-sanitizer, the frontend ops on the GPU,
# seed 0's sweep (every class) and the reduce class of seeds 43 and 45 on the final code
. scripts/gpu-env.sh
T=bench/results/session22/tools
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = memcheck ] && extra="--report-api-errors no"
  timeout 60 compute-sanitizer --tool $tool $extra python3 $T/san22.py 2>&1 | grep -v -i warn | tail -4 | tee -a $OUT/call3-san22.txt
done
timeout 150 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py 2>&1 | tail -3 | tee $OUT/call3-frontend-gpu.txt
timeout 200 python3 bench/sweep.py --seed 0 --modes eager,compile --budget-s 170 --target-ms 40 \
  --json $OUT/h200-2026-11-29-s22-seed0.json --out $OUT > $OUT/call3-sweep0.txt 2>&1
echo "sweep 0 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call3-sweep0.txt
for s in 43 45; do
  timeout 60 python3 bench/sweep.py --seed $s --classes reduce --modes eager,compile --budget-s 45 --target-ms 40 \
    --json $OUT/h200-2026-11-29-s22-seed$s-reduce.json --out $OUT > $OUT/call3-sweep$s-reduce.txt 2>&1
  echo "sweep $s reduce rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call3-sweep$s-reduce.txt
done
