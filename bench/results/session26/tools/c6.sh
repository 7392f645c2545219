#!/usr/bin/env bash
# call 6: merge-columns at WASTE_MIN 0 against 1/8 over the 22 sweep programs it changes
# (wasteab26.py): the column reductions at 3.5 TB/s against eager's 4 (mean over dim 1 of
# 128 x 128 x 479 x 29: 29 -> 32 padded, 9% idle, unmerged)
. scripts/gpu-env.sh
timeout 300 python3 bench/results/session26/tools/wasteab26.py $OUT/call6-wasteab.json > $OUT/call6-wasteab.txt 2>&1
echo "ab rc=$?"; tail -26 $OUT/call6-wasteab.txt
