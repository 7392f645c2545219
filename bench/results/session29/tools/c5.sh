#!/usr/bin/env bash
# call 5: tensor-core tiles 32 wide where N <= 32 (narrow29.py --ab) on the 18 sweep programs of
# seeds 62, 64-130 it changes; then the sparse-split A/B (ab29s.py) on the even half of session
# 28's held-out list (seeds 64-130), the committed change's second held-out check
. scripts/gpu-env.sh
D=bench/results/session29
timeout 150 python3 $D/tools/narrow29.py --ab $D/narrowchanged.txt $OUT/call5-narrow.json > $OUT/call5-narrow.txt 2>&1
echo "narrow rc=$?"; grep -v Warning $OUT/call5-narrow.txt | grep -v warnings.warn | grep -A30 "^case"
timeout 300 python3 $D/tools/ab29s.py $D/heldout-even.txt $OUT/call5-sparse.json > $OUT/call5-sparse.txt 2>&1
echo "sparse rc=$?"; grep -v Warning $OUT/call5-sparse.txt | grep -v warnings.warn | grep -A80 "^case"
