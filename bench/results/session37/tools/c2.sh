#!/usr/bin/env bash
# call 2 (lgamma as math.lgamma, fuse-elementwise): the canary; the kernels of this session's ops
# under memcheck and racecheck; this session's programs; session 34's 55 ordinary programs
. scripts/gpu-env.sh
T=bench/results/session37/tools
timeout 60 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call2-canary.txt 2>&1; grep -A2 "^case" $OUT/call2-canary.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 100 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize37.py > $OUT/call2-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err |Error" $OUT/call2-memcheck.txt | tail -12
timeout 80 "$cs" --tool racecheck --print-limit 20 python3 $T/sanitize37.py > $OUT/call2-racecheck.txt 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard" $OUT/call2-racecheck.txt | tail -4
timeout 200 python3 $T/ab37.py $OUT/call2-ab37.json > $OUT/call2-ab37.txt 2>&1; echo "ab37 rc=$?"
grep -v Warning $OUT/call2-ab37.txt | grep -v warnings.warn | grep -A16 "^case"
timeout 240 python3 bench/results/session34/tools/ab34all.py $OUT/call2-ordinary.json > $OUT/call2-ordinary.txt 2>&1; echo "ord rc=$?"
grep -v Warning $OUT/call2-ordinary.txt | grep -v warnings.warn | grep -A58 "^case"
