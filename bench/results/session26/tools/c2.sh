#!/usr/bin/env bash
# call 2: SIMT and the tensor cores raced at their wave models against the old models, over the
# 48 sweep programs of seeds 0, 41-61 and the 2 suite cases it changes (raceab26.py)
. scripts/gpu-env.sh
timeout 560 python3 bench/results/session26/tools/raceab26.py $OUT/call2-raceab.json > $OUT/call2-raceab.txt 2>&1
echo "ab rc=$?"; tail -56 $OUT/call2-raceab.txt
