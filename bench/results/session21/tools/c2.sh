#!/usr/bin/env bash
# call 2: small-M matmuls under MIN_MN 32 / 16 / 1; the suite's attention cases and layers
. scripts/gpu-env.sh
T=bench/results/session21/tools
timeout 330 python3 $T/smallm21b.py 2>&1 | grep -v Warn | tee $OUT/call2-smallm21b.txt
timeout 220 python3 bench/suite.py --cases "sdpa,layer" --modes eager,compile --budget-s 200 --json $OUT/call2-suite.json 2>&1 | tail -12 | tee $OUT/call2-suite.txt
