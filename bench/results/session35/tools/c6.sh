#!/usr/bin/env bash
# call 6: the shared-memory carveout: the short-K cases and the ordinary programs with 1x1
# convolutions, each process with the driver's default carveout (none) or 100 % shared memory
# asked for kernels of more than 48 KB of it. It ran with a runtime.CARVEOUT attribute (set by
# cuFuncSetAttribute(PREFERRED_SHARED_MEMORY_CARVEOUT)) and an ab35.py --carveout flag, both
# removed after the call found no gain (see the note): as it stands it no longer runs.
cd .s35 && . scripts/gpu-env.sh
T=bench/results/session35/tools
C='pn_conv1d|pn_convmax|r50|wavenet|conformer|lin_128|bcast|mm_nn_2048|lmhead|coord|shuffle'
O='pointnet|wavenet|coordconv|shuffle_unit|swin|conformer|upconv|reflect_conv|encoder'
for cv in none 100; do
  timeout 170 python3 $T/ab35.py --variants tree --carveout $cv --cases "$C" $OUT/call6-shortk-$cv.json > $OUT/call6-shortk-$cv.txt 2>&1; echo "shortk $cv rc=$?"
  grep -v Warn $OUT/call6-shortk-$cv.txt | grep -v warnings.warn | grep -A20 "^case"
  timeout 120 python3 $T/ab35.py --ordinary --variants tree --carveout $cv --cases "$O" $OUT/call6-ord-$cv.json > $OUT/call6-ord-$cv.txt 2>&1; echo "ord $cv rc=$?"
  grep -v Warn $OUT/call6-ord-$cv.txt | grep -v warnings.warn | grep -A20 "^case"
done
