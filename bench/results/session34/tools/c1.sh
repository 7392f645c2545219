#!/usr/bin/env bash
# call 1: ordinary34's 31 programs against eager
. scripts/gpu-env.sh
T=bench/results/session34/tools
timeout 540 python3 $T/ab34.py $OUT/call1-ordinary.json > $OUT/call1-ordinary.txt 2>&1; echo "ord rc=$?"
grep -v Warning $OUT/call1-ordinary.txt | grep -v warnings.warn | grep -A45 "^case"
