#!/usr/bin/env bash
# call 8: small pointwise tiles of an element count 4 does not divide as one flat scalar axis
# against declined (ab28f.py)
. scripts/gpu-env.sh
D=bench/results/session28
timeout 250 python3 $D/tools/ab28f.py $D/flatchanged.txt $OUT/call8-flat.json > $OUT/call8-flat.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call8-flat.txt | tail -68
