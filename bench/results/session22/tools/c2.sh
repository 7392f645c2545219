#!/usr/bin/env bash
# call 2: one-pass column reductions, lanes that fill the GPU against 8 lanes
. scripts/gpu-env.sh
T=bench/results/session22/tools
timeout 400 python3 $T/colab22.py $OUT/call2-colab22.json 2>&1 | grep -v -i warn | tee $OUT/call2-colab22.txt
