#!/usr/bin/env bash
# call 5 (the final tree): every ordinary program of the session against eager; split-reduce
# over several sums and the arange's one-hot under memcheck and racecheck; the atomic GPU tests;
# unseen sweep seed 84
. scripts/gpu-env.sh
T=bench/results/session33/tools
timeout 230 python3 $T/ab33all.py $OUT/call5-ordinary.json > $OUT/call5-ordinary.txt 2>&1; echo "ord rc=$?"
grep -v Warning $OUT/call5-ordinary.txt | grep -v warnings.warn | grep -A55 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 70 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 $T/sanitize33c.py > $OUT/call5-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err |Error" $OUT/call5-$tool.txt | tail -6
done
timeout 60 python3 -m pytest -q -m gpu tests/test_atomic_gpu.py -p no:cacheprovider 2>&1 | tail -2
timeout 150 python3 bench/sweep.py --seed 84 --modes eager,compile --budget-s 130 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s33-seed84.json --out $OUT > $OUT/call5-sweep84.txt 2>&1
echo "sweep 84 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call5-sweep84.txt
rm -f $OUT/*.png
