#!/usr/bin/env bash
# call 4: --fmad=false against NVRTC's contraction on the suite's operator cases and sweep seed 46
. scripts/gpu-env.sh
T=bench/results/session46/tools
timeout 560 python3 $T/fma46.py $OUT/call4-fma46.json > $OUT/call4-fma46.txt 2>&1; echo "fma46 rc=$?"
grep -v Warning $OUT/call4-fma46.txt | grep -v warnings.warn | grep -E "^[a-zA-Z_0-9.-]+ |geomean|^case" | tail -56
