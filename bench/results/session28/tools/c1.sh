#!/usr/bin/env bash
# call 1: the short-row change against the tree before it (ab28r.py), and its kernels with
# session 27's 32-lane column kernel under compute-sanitizer (sanitize28.py)
. scripts/gpu-env.sh
D=bench/results/session28
timeout 280 python3 $D/tools/ab28r.py $D/rowschanged.txt $OUT/call1-rows.json > $OUT/call1-rows.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call1-rows.txt | tail -40
bash $D/tools/sanitize28.sh call1 100
