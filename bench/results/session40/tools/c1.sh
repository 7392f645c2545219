#!/usr/bin/env bash
# call 1: the canary; the sixth batch of ordinary programs against eager and torch.compile
. scripts/gpu-env.sh
T=bench/results/session40/tools
timeout 50 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call1-canary.txt 2>&1; grep -A2 "^case" $OUT/call1-canary.txt
timeout 530 python3 $T/ab40.py $OUT/call1-ab40.json > $OUT/call1-ab40.txt 2>&1; echo "ab40 rc=$?"
grep -v Warning $OUT/call1-ab40.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean" | tail -80
