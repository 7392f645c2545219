#!/usr/bin/env bash
# call 1: the canary; transposed convolutions by phases against the zero-interleaved lowering,
# eager and torch.compile; nn.LSTM over 64 steps (now compiling); memcheck of both changes
. scripts/gpu-env.sh
T=bench/results/session44/tools
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call1-canary.txt 2>&1; grep -A2 "^case" $OUT/call1-canary.txt
timeout 170 python3 $T/convt44.py $OUT/call1-convt44.json > $OUT/call1-convt44.txt 2>&1; echo "convt44 rc=$?"
grep -v Warning $OUT/call1-convt44.txt | grep -v warnings.warn | grep -E "^[a-zA-Z_0-9]+ |geomean" | tail -20
SECONDS=0; timeout 250 python3 $T/ab44.py --cases lstm --variants limit $OUT/call1-lstm.json > $OUT/call1-lstm.txt 2>&1; echo "lstm rc=$? in ${SECONDS}s"
grep -E "^[a-zA-Z_0-9]+ |geomean" $OUT/call1-lstm.txt | tail -6
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 120 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize44.py > $OUT/call1-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err " $OUT/call1-memcheck.txt | tail -7
