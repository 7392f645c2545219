#!/usr/bin/env bash
# call 1: the canary; the fifth batch of ordinary programs against eager and torch.compile
. scripts/gpu-env.sh
T=bench/results/session38/tools
timeout 50 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call1-canary.txt 2>&1; grep -A2 "^case" $OUT/call1-canary.txt
timeout 520 python3 $T/ab38.py $OUT/call1-ab38.json > $OUT/call1-ab38.txt 2>&1; echo "ab38 rc=$?"
grep -v Warning $OUT/call1-ab38.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean" | tail -80
