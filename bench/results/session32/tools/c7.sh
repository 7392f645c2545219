#!/usr/bin/env bash
# call 7: convolutions the session did not aim at (grouped, dilated, transposed: the last did not
# compile at this size before) against the session's start (ab32g.py); their kernels under memcheck
. scripts/gpu-env.sh
T=bench/results/session32/tools
timeout 150 python3 $T/ab32g.py $OUT/call7-other.json > $OUT/call7-other.txt 2>&1; echo "ab rc=$?"
grep -v Warning $OUT/call7-other.txt | grep -v warnings.warn | grep -A6 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 60 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize32g.py > $OUT/call7-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|kernels, err" $OUT/call7-memcheck.txt | tail -4
