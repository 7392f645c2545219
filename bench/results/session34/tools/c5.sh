#!/usr/bin/env bash
# call 5 (the final tree): unseen sweep seed 85; every ordinary program of the session against
# eager; the frontend's new ops under memcheck and racecheck and their GPU parity tests
. scripts/gpu-env.sh
T=bench/results/session34/tools
timeout 190 python3 bench/sweep.py --seed 85 --modes eager,compile --budget-s 150 --target-ms 40 \
  --json $OUT/h200-2026-12-01-s34-seed85.json --out $OUT > $OUT/call5-sweep85.txt 2>&1
echo "sweep 85 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call5-sweep85.txt
rm -f $OUT/*.png
timeout 200 python3 $T/ab34all.py $OUT/call5-ordinary.json > $OUT/call5-ordinary.txt 2>&1; echo "ord rc=$?"
grep -v Warning $OUT/call5-ordinary.txt | grep -v warnings.warn | grep -A58 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 60 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 $T/sanitize34c.py > $OUT/call5-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err |Error" $OUT/call5-$tool.txt | tail -10
done
timeout 80 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "index or unfold or fold or scatter or bucket or search or embedding or addbmm or addmv or fmax" -p no:cacheprovider 2>&1 | tail -2
