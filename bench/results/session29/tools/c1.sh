#!/usr/bin/env bash
# call 1: sparse splits wherever a split leaves SMs idle, the displaced count weighed (ab29s.py),
# on 4 named shapes and the odd half of session 28's held-out sparse list (seeds 64-130)
. scripts/gpu-env.sh
D=bench/results/session29
timeout 540 python3 $D/tools/ab29s.py $D/heldout-odd.txt $OUT/call1-sparse.json > $OUT/call1-sparse.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call1-sparse.txt | grep -v warnings.warn | tail -80
