#!/usr/bin/env bash
# call 1: the canary; the slice-assignment programs A/B (base / nofold / tree); the new concat
# kernels under memcheck and racecheck; the GPU parity tests of the slice-assignment ops
. scripts/gpu-env.sh
T=bench/results/session36/tools
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call1-canary.txt 2>&1; grep -A2 "^case" $OUT/call1-canary.txt
timeout 330 python3 $T/ab36.py --variants base,nofold,tree $OUT/call1-assign.json > $OUT/call1-assign.txt 2>&1; echo "assign rc=$?"
grep -v -i warn $OUT/call1-assign.txt | grep -A16 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 70 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize36.py > $OUT/call1-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err |Error" $OUT/call1-memcheck.txt | tail -10
timeout 60 "$cs" --tool racecheck --print-limit 20 python3 $T/sanitize36.py > $OUT/call1-racecheck.txt 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard" $OUT/call1-racecheck.txt | tail -4
timeout 60 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "temporal or slice or select_scatter or roll or cat or pad" -p no:cacheprovider 2>&1 | tail -2
