#!/usr/bin/env bash
# call 5: few-row lanes A/B again on the final rule (at most 12 trips, every row's block resident)
. scripts/gpu-env.sh
T=bench/results/session23/tools
timeout 160 python3 $T/fewab23.py $OUT/call5-fewab.json 2>&1 | grep -v -i warn > $OUT/call5-fewab.txt
echo "fewab rc=$?"; tail -25 $OUT/call5-fewab.txt
