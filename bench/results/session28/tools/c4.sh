#!/usr/bin/env bash
# call 4: one-pass column reductions on blocks of 512 / 1024 threads against the tree (ab28c.py)
. scripts/gpu-env.sh
D=bench/results/session28
timeout 330 python3 $D/tools/ab28c.py $D/colblocksample.txt $OUT/call4-colblock.json > $OUT/call4-colblock.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call4-colblock.txt | tail -66
