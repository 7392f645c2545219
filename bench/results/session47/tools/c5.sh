#!/usr/bin/env bash
# call 5: the eighth batch again after this session's fixes (LeNet, StyleGAN2's demodulation, the
# interleaved rotary), per-kernel times of the cases still below eager, the canary
. scripts/gpu-env.sh
T=bench/results/session47/tools
timeout 300 python3 $T/ab47.py $OUT/call5-ab47.json > $OUT/call5-ab47.txt 2>&1; echo "ab47 rc=$?"
grep -v Warning $OUT/call5-ab47.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean" | tail -50
timeout 150 python3 $T/prof47.py "nonlocal|fpn|sim_mask|swin" > $OUT/call5-prof47.txt 2>&1; echo "prof47 rc=$?"; grep -v Warning $OUT/call5-prof47.txt | grep -v warnings.warn | tail -40
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call5-canary.txt 2>&1; grep -A2 "^case" $OUT/call5-canary.txt
