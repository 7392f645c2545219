#!/usr/bin/env bash
# call 9: at most 2 K steps left to SIMT (schedule.SIMT_MAX_STEPS) against not, over the 3
# programs of seeds 0 and 41-73 it changes (shortkab26.py --final)
. scripts/gpu-env.sh
timeout 150 python3 bench/results/session26/tools/shortkab26.py --final $OUT/call9-simtmax.json > $OUT/call9-simtmax.txt 2>&1
echo "ab rc=$?"; tail -7 $OUT/call9-simtmax.txt
