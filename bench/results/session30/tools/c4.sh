#!/usr/bin/env bash
# call 4: masked scalar loads as load-and-select, A/B on the programs it changes (ab30m.py)
. scripts/gpu-env.sh
timeout 540 python3 bench/results/session30/tools/ab30m.py bench/results/session30/selectchanged.txt $OUT/call4-select.json > $OUT/call4-select.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call4-select.txt | grep -v warnings.warn | grep -A60 "^case"
