#!/usr/bin/env bash
# call 3 (the final tree): the canary; this session's kernels under memcheck and racecheck (the
# masked convolution's case fixed: its mask an input); the fifth batch of ordinary programs
# against eager and torch.compile
. scripts/gpu-env.sh
T=bench/results/session38/tools
timeout 50 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call3-canary.txt 2>&1; grep -A2 "^case" $OUT/call3-canary.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 90 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize38.py > $OUT/call3-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err |Error" $OUT/call3-memcheck.txt | tail -12
timeout 80 "$cs" --tool racecheck --print-limit 20 python3 $T/sanitize38.py > $OUT/call3-racecheck.txt 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard" $OUT/call3-racecheck.txt | tail -4
timeout 330 python3 $T/ab38.py $OUT/call3-ab38.json > $OUT/call3-ab38.txt 2>&1; echo "ab38 rc=$?"
grep -v Warning $OUT/call3-ab38.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean|^case" | tail -72
