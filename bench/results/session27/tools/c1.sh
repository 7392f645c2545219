#!/usr/bin/env bash
# call 1: column norms' lanes (col), fuse-loops' max-column-reduce (fuse), split-reduce's floor (floor)
. scripts/gpu-env.sh
D=bench/results/session27
timeout 230 python3 $D/tools/ab27.py col $D/colsample.txt $OUT/call1-col.json > $OUT/call1-col.txt 2>&1
echo "col rc=$?"; grep -A8 "^case" $OUT/call1-col.txt | head -3; grep geomean $OUT/call1-col.txt
timeout 130 python3 $D/tools/ab27.py fuse $D/fusesample.txt $OUT/call1-fuse.json > $OUT/call1-fuse.txt 2>&1
echo "fuse rc=$?"; grep geomean $OUT/call1-fuse.txt
timeout 200 python3 $D/tools/ab27.py floor $D/floorsample.txt $OUT/call1-floor.json > $OUT/call1-floor.txt 2>&1
echo "floor rc=$?"; grep geomean $OUT/call1-floor.txt
