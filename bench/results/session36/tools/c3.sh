#!/usr/bin/env bash
# call 3: the canary; the slice-assignment programs A/B after the shared-concat copy; the decoder
# layers (their rotary concatenations' parts now one launch) A/B; memcheck of the concat kernels
. scripts/gpu-env.sh
T=bench/results/session36/tools
timeout 60 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call3-canary.txt 2>&1; grep -A2 "^case" $OUT/call3-canary.txt
timeout 200 python3 $T/ab36.py --variants base,tree $OUT/call3-assign.json > $OUT/call3-assign.txt 2>&1; echo "assign rc=$?"
grep -v -i warn $OUT/call3-assign.txt | grep -A16 "^case"
timeout 260 python3 $T/ab36.py --layers --variants base,tree $OUT/call3-layers.json > $OUT/call3-layers.txt 2>&1; echo "layers rc=$?"
grep -v -i warn $OUT/call3-layers.txt | grep -A8 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 60 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize36.py > $OUT/call3-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err |Error" $OUT/call3-memcheck.txt | tail -10
