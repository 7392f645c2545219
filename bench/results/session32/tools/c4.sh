#!/usr/bin/env bash
# call 4: padded windows as one elementwise op against a concat per dim (ab32p.py); their kernels
# under memcheck and racecheck (sanitize32p.py); the GPU tests of the frontend's convolutions and
# pools
. scripts/gpu-env.sh
T=bench/results/session32/tools
timeout 300 python3 $T/ab32p.py $OUT/call4-pad.json > $OUT/call4-pad.txt 2>&1; echo "ab rc=$?"
grep -v Warning $OUT/call4-pad.txt | grep -v warnings.warn | grep -A20 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 80 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 $T/sanitize32p.py > $OUT/call4-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|kernels, err" $OUT/call4-$tool.txt | tail -7
done
timeout 100 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "conv or pool or pad or unfold" \
  -p no:cacheprovider 2>&1 | tail -2 | tee $OUT/call4-gpu-tests.txt
