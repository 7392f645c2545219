#!/usr/bin/env bash
# call 4: per-kernel times of the programs still below eager
. scripts/gpu-env.sh
T=bench/results/session34/tools
timeout 400 python3 $T/prof34.py "pointnet|shuffle_unit|swin|tsm|token_drop|coordconv|wavenet|upconv|conformer|reflect" > $OUT/call4-profile.txt 2>&1; echo "prof rc=$?"
grep -v Warning $OUT/call4-profile.txt | grep -v "warnings.warn\|^\s*$\|^-\+\|bytes in\|floor\b.*ms" | cut -c1-120 | tail -170
