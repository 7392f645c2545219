#!/usr/bin/env bash
# call 5: split-matmul-k's sparse-grid splits wherever a launch leaves SMs idle (ab28s.py), over
# the sweep matmuls this changes among seeds 0 and 41-63
. scripts/gpu-env.sh
D=bench/results/session28
timeout 400 python3 $D/tools/ab28s.py $D/sparsechanged-fit.txt $OUT/call5-sparse.json 52 > $OUT/call5-sparse.txt 2>&1
echo "ab rc=$?"; grep -v Warning $OUT/call5-sparse.txt | tail -56
