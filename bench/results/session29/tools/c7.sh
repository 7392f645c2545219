#!/usr/bin/env bash
# not run (no device time left in session 29): the suite's decoder layers on session 28's split
# rule against the tree (ab29t.py); TinyLlama's layer at seq 128 has its k/v projections on
# SIMT 64 x 32 split 32 in the tree, split 8 before (checked on the host)
. scripts/gpu-env.sh
timeout 500 python3 bench/results/session29/tools/ab29t.py _layer_ $OUT/call7-layers.json > $OUT/call7-layers.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call7-layers.txt | grep -v warnings.warn | grep -A8 "^case"
