#!/usr/bin/env bash
# call 3: the decoder layers with and without compacted contraction accesses (the o_proj on the
# tensor cores); ordinary34b on this tree; the new kernels under memcheck and racecheck; the
# attention GPU tests
. scripts/gpu-env.sh
T=bench/results/session34/tools
timeout 280 python3 $T/ab34l.py $OUT/call3-layers.json > $OUT/call3-layers.txt 2>&1; echo "layers rc=$?"
grep -v Warning $OUT/call3-layers.txt | grep -v warnings.warn | grep -A8 "^case"
timeout 150 python3 $T/ab34b.py $OUT/call3-ordinary34b.json > $OUT/call3-ordinary34b.txt 2>&1; echo "o34b rc=$?"
grep -v Warning $OUT/call3-ordinary34b.txt | grep -v warnings.warn | grep -A30 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 60 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 $T/sanitize34b.py > $OUT/call3-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err " $OUT/call3-$tool.txt | tail -6
done
timeout 60 python3 -m pytest -q -m gpu tests/test_attention.py -p no:cacheprovider 2>&1 | tail -2
