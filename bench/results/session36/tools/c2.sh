#!/usr/bin/env bash
# call 2 (2686088): the canary; the slice-assignment programs and the ordinary programs the
# session changes, A/B base / tree; the concat kernels under memcheck and racecheck
. scripts/gpu-env.sh
T=bench/results/session36/tools
timeout 60 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call2-canary.txt 2>&1; grep -A2 "^case" $OUT/call2-canary.txt
timeout 200 python3 $T/ab36.py --variants base,tree $OUT/call2-assign.json > $OUT/call2-assign.txt 2>&1; echo "assign rc=$?"
grep -v -i warn $OUT/call2-assign.txt | grep -A16 "^case"
timeout 180 python3 $T/ab36.py --ordinary --cases "label_smooth|timestep|masked_softmax|stack_3x|cumprod|gcn|yolo|box_iou|coordconv|tsm" \
  --variants base,tree $OUT/call2-ordinary.json > $OUT/call2-ordinary.txt 2>&1; echo "ordinary rc=$?"
grep -v -i warn $OUT/call2-ordinary.txt | grep -A14 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 60 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize36.py > $OUT/call2-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err |Error" $OUT/call2-memcheck.txt | tail -10
timeout 60 "$cs" --tool racecheck --print-limit 20 python3 $T/sanitize36.py > $OUT/call2-racecheck.txt 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard" $OUT/call2-racecheck.txt | tail -4
