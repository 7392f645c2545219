#!/usr/bin/env bash
# call 3: sparse splits on SIMT 128 x 128 tiles too (ab29b.py), on the sweep matmuls this changes
# among seeds 64-69 (changed29.py)
. scripts/gpu-env.sh
D=bench/results/session29
timeout 560 python3 $D/tools/ab29b.py $D/bigchanged-64-69.txt $OUT/call3-big.json > $OUT/call3-big.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call3-big.txt | grep -v warnings.warn | tail -90
