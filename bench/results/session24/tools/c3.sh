#!/usr/bin/env bash
# call 3: the fill plan (by rows or split once) A/B against per copy and split once; under
# compute-sanitizer; the whole-K GPU tests; unseen seed 52, matmul and bmm classes
. scripts/gpu-env.sh
T=bench/results/session24/tools
timeout 300 python3 $T/rowab24.py $OUT/call3-rowab.json 2>&1 | grep -v -i warn > $OUT/call3-rowab.txt
echo "rowab rc=$?"; tail -44 $OUT/call3-rowab.txt
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = memcheck ] && extra="--report-api-errors no"
  timeout 60 compute-sanitizer --tool $tool $extra python3 $T/san24.py 2>&1 | grep -v -i warn | tail -5 | tee -a $OUT/call3-san24.txt
done
timeout 60 python3 -m pytest -q -m gpu tests/test_whole_k.py 2>&1 | tail -2 | tee $OUT/call3-wholek-gpu.txt
timeout 90 python3 bench/sweep.py --seed 52 --classes matmul,bmm --modes eager,compile --budget-s 75 --target-ms 40 \
  --json $OUT/h200-2026-11-29-s24-seed52-mm.json --out $OUT > $OUT/call3-sweep52-mm.txt 2>&1
echo "sweep 52 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call3-sweep52-mm.txt
rm -f $OUT/*.png
