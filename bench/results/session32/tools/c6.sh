#!/usr/bin/env bash
# call 6 (the final tree): the tree against the session's start on the ordinary programs
# (ab32f.py); the collapsed contractions under memcheck; the GPU tests end to end and of the
# frontend's convolutions, linears and pools; then unseen seed 81
. scripts/gpu-env.sh
T=bench/results/session32/tools
timeout 230 python3 $T/ab32f.py $OUT/call6-final.json > $OUT/call6-final.txt 2>&1; echo "ab rc=$?"
grep -v Warning $OUT/call6-final.txt | grep -v warnings.warn | grep -A30 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 70 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize32c.py > $OUT/call6-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|kernels, err" $OUT/call6-memcheck.txt | tail -8
timeout 70 python3 -m pytest -q -m gpu tests/test_e2e_gpu.py tests/test_frontend_ops_gpu.py -k "conv or linear or pool or e2e or matmul" \
  -p no:cacheprovider 2>&1 | tail -2 | tee $OUT/call6-gpu-tests.txt
timeout 150 python3 bench/sweep.py --seed 81 --modes eager,compile --budget-s 110 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s32-seed81.json --out $OUT > $OUT/call6-sweep81.txt 2>&1
echo "sweep 81 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call6-sweep81.txt
rm -f $OUT/*.png
