#!/usr/bin/env bash
# call 1: the canary; top-k in blocks under memcheck and racecheck; topk39's programs, blocks
# against the n x n box, eager and torch.compile
. scripts/gpu-env.sh
T=bench/results/session39/tools
timeout 50 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call1-canary.txt 2>&1; grep -A2 "^case" $OUT/call1-canary.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 90 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize39.py > $OUT/call1-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err |Error" $OUT/call1-memcheck.txt | tail -8
timeout 80 "$cs" --tool racecheck --print-limit 20 python3 $T/sanitize39.py > $OUT/call1-racecheck.txt 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard" $OUT/call1-racecheck.txt | tail -4
timeout 300 python3 $T/ab39.py $OUT/call1-ab39.json > $OUT/call1-ab39.txt 2>&1; echo "ab39 rc=$?"
grep -v Warning $OUT/call1-ab39.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean|^case" | tail -30
