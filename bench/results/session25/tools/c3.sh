#!/usr/bin/env bash
# call 3: the wave model's tile pick against the old model's over the 10 sweep programs of seeds
# 0 and 41-57 it changes and two cliffs (waveab25.py); the tensor-core GPU tests; then unseen
# seed 58, every class, on the new tree
. scripts/gpu-env.sh
timeout 200 python3 bench/results/session25/tools/waveab25.py $OUT/call3-waveab.json > $OUT/call3-waveab.txt 2>&1
echo "ab rc=$?"; tail -16 $OUT/call3-waveab.txt
timeout 120 python3 -m pytest -q -m gpu tests/test_mma_gpu.py -x 2>&1 | tail -3 | tee $OUT/call3-mma-gpu.txt
timeout 200 python3 bench/sweep.py --seed 58 --modes eager,compile --budget-s 180 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s25-seed58.json --out $OUT > $OUT/call3-sweep58.txt 2>&1
echo "sweep 58 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call3-sweep58.txt
rm -f $OUT/*.png
