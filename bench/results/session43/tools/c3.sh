#!/usr/bin/env bash
# call 3: the canary; the half-precision programs (single-pass TF32 now) against eager and
# torch.compile
. scripts/gpu-env.sh
T=bench/results/session43/tools
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call3-canary.txt 2>&1; grep -A2 "^case" $OUT/call3-canary.txt
timeout 300 python3 $T/ab43.py --cases 'bf16' $OUT/call3-ab43.json > $OUT/call3-ab43.txt 2>&1; echo "ab43 rc=$?"
grep -v Warning $OUT/call3-ab43.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean" | tail -8
