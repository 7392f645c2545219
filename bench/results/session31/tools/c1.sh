#!/usr/bin/env bash
# call 1: probe31.py (what merged rows and in-kernel tails would gain)
. scripts/gpu-env.sh
timeout 400 python3 bench/results/session31/tools/probe31.py $OUT/call1-probe.json > $OUT/call1-probe.txt 2>&1; echo rc=$?
grep -v Warning $OUT/call1-probe.txt | grep -v warnings.warn | grep -A40 "^case"
