#!/usr/bin/env bash
# call 1: the wgmma flash probe: layouts, errors, times; memcheck/racecheck on a small case
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
T=bench/results/session19/tools
python3 $T/fwg.py 2>&1 | tee $OUT/call2-fwg.txt
timeout 200 compute-sanitizer --tool memcheck --report-api-errors no python3 $T/fwg.py --san 2>&1 | tail -5 | tee $OUT/call2-san.txt
timeout 200 compute-sanitizer --tool racecheck python3 $T/fwg.py --san 2>&1 | tail -5 | tee -a $OUT/call2-san.txt
