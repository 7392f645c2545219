#!/usr/bin/env bash
# call 7: collapse-pointwise's tail kernel from 18 / 9 MB against 36 MB (ab28t.py)
. scripts/gpu-env.sh
D=bench/results/session28
timeout 300 python3 $D/tools/ab28t.py $D/tailchanged.txt $OUT/call7-tail.json > $OUT/call7-tail.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call7-tail.txt | tail -40
