#!/usr/bin/env bash
# call 4: the canary; Meta's complex RoPE with pairs packed by where (one kernel over the data)
# against eager and torch.compile; memcheck of the new lowerings again (the pairs changed)
. scripts/gpu-env.sh
T=bench/results/session43/tools
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call4-canary.txt 2>&1; grep -A2 "^case" $OUT/call4-canary.txt
timeout 120 python3 $T/ab43.py --cases 'rope' $OUT/call4-ab43.json > $OUT/call4-ab43.txt 2>&1; echo "ab43 rc=$?"
grep -v Warning $OUT/call4-ab43.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean" | tail -6
timeout 200 "$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize43.py > $OUT/call4-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err " $OUT/call4-memcheck.txt | tail -6
