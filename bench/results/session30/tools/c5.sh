#!/usr/bin/env bash
# call 5: what a split norm's affine parameters cost (probe30w.py), run as one command:
. scripts/gpu-env.sh; timeout 300 python3 bench/results/session30/tools/probe30w.py $OUT/call5-probe.json > $OUT/call5-probe.txt 2>&1; echo rc=$?; grep -v Warning $OUT/call5-probe.txt | grep -v warnings.warn | grep -A10 "^case"
