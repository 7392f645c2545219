#!/usr/bin/env bash
# call 2: merge-columns A/B on every sweep program it changes; the matmul model's short-K terms
# A/B on the programs of unseen seeds 41-48 that they change
. scripts/gpu-env.sh
T=bench/results/session23/tools
timeout 200 python3 $T/mergeab23.py $OUT/call2-mergeab.json 2>&1 | grep -v -i warn | tee $OUT/call2-mergeab.txt | tail -4
timeout 330 python3 $T/mmab23.py 41,42,43,44,45,46,47,48 $OUT/call2-mmab.json 2>&1 | grep -v -i warn > $OUT/call2-mmab.txt
echo "mmab rc=$?"; tail -40 $OUT/call2-mmab.txt
