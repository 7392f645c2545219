#!/usr/bin/env bash
# call 7 (the final tree): call 1's small-row norms again (probe31r.py)
. scripts/gpu-env.sh
timeout 150 python3 bench/results/session31/tools/probe31r.py $OUT/call7-probe.json > $OUT/call7-probe.txt 2>&1; echo rc=$?
grep -v Warning $OUT/call7-probe.txt | grep -v warnings.warn | grep -A10 "^case"
