#!/usr/bin/env bash
# call 2: split-once fills A/B over the sweep programs they change; under compute-sanitizer;
# the whole-K and stage-fill GPU tests; unseen seed 51, every class
. scripts/gpu-env.sh
T=bench/results/session24/tools
timeout 260 python3 $T/rowab24.py $OUT/call2-rowab.json 2>&1 | grep -v -i warn > $OUT/call2-rowab.txt
echo "rowab rc=$?"; tail -42 $OUT/call2-rowab.txt
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = memcheck ] && extra="--report-api-errors no"
  timeout 60 compute-sanitizer --tool $tool $extra python3 $T/san24.py 2>&1 | grep -v -i warn | tail -5 | tee -a $OUT/call2-san24.txt
done
timeout 60 python3 -m pytest -q -m gpu tests/test_whole_k.py 2>&1 | tail -2 | tee $OUT/call2-wholek-gpu.txt
timeout 170 python3 bench/sweep.py --seed 51 --modes eager,compile --budget-s 150 --target-ms 40 \
  --json $OUT/h200-2026-11-29-s24-seed51.json --out $OUT > $OUT/call2-sweep51.txt 2>&1
echo "sweep 51 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call2-sweep51.txt
rm -f $OUT/*.png
