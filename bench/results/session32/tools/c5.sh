#!/usr/bin/env bash
# call 5: the tree against the session's start on the ordinary programs it touches (ab32f.py);
# the collapsed contractions, now taking views, under memcheck (sanitize32c.py)
. scripts/gpu-env.sh
T=bench/results/session32/tools
timeout 420 python3 $T/ab32f.py $OUT/call5-final.json > $OUT/call5-final.txt 2>&1; echo "ab rc=$?"
grep -v Warning $OUT/call5-final.txt | grep -v warnings.warn | grep -A30 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 90 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize32c.py > $OUT/call5-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|kernels, err" $OUT/call5-memcheck.txt | tail -8
