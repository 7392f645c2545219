#!/usr/bin/env bash
# call 4: the canary; special functions with their series as elementwise chains against the
# series as reductions (before) and without inline-constants, eager and torch.compile
. scripts/gpu-env.sh
T=bench/results/session44/tools
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call4-canary.txt 2>&1; grep -A2 "^case" $OUT/call4-canary.txt
timeout 480 python3 $T/special44.py --cases "erfinv|i0|beta|loss_batch|log_scan" $OUT/call4-special44.json > $OUT/call4-special44.txt 2>&1; echo "special44 rc=$?"
grep -v Warning $OUT/call4-special44.txt | grep -v warnings.warn | grep -E "^[a-zA-Z_0-9]+ |geomean" | tail -16
