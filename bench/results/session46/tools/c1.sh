#!/usr/bin/env bash
# call 1: the canary; session 45's det parity failure chased launch by launch; whole-tensor
# statistics and a Cholesky before / after this session; GPU tests; memcheck of the new kernels
. scripts/gpu-env.sh
T=bench/results/session46/tools
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call1-canary.txt 2>&1; grep -A2 "^case" $OUT/call1-canary.txt
timeout 100 python3 $T/det46.py > $OUT/call1-det.txt 2>&1; echo "det46 rc=$?"; cat $OUT/call1-det.txt | cut -c1-300 | tail -25
timeout 260 python3 $T/global46.py $OUT/call1-global46.json > $OUT/call1-global46.txt 2>&1; echo "global46 rc=$?"
grep -v Warning $OUT/call1-global46.txt | grep -v warnings.warn | grep -E "^[a-zA-Z_0-9]+ |geomean|^case" | tail -36
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 90 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize46.py > $OUT/call1-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err " $OUT/call1-memcheck.txt | tail -8
timeout 60 "$cs" --tool racecheck --print-limit 20 python3 $T/sanitize46.py > $OUT/call1-racecheck.txt 2>&1; echo "racecheck rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err " $OUT/call1-racecheck.txt | tail -8
