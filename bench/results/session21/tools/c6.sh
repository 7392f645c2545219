#!/usr/bin/env bash
# call 6: outer column axes only where the blocks still fill the SMs (tree) against b9d8d63
. scripts/gpu-env.sh
timeout 150 python3 bench/results/session21/tools/fill21.py 2>&1 | grep -v -i warn | tail -8 | tee $OUT/call6-fill21.txt
