#!/usr/bin/env bash
# call 8: a short K left to SIMT against the tree over the 3 sweep programs it changes (shortkab26.py)
. scripts/gpu-env.sh
timeout 150 python3 bench/results/session26/tools/shortkab26.py $OUT/call8-shortkab.json > $OUT/call8-shortkab.txt 2>&1
echo "ab rc=$?"; tail -7 $OUT/call8-shortkab.txt
