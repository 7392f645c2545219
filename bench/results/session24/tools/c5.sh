#!/usr/bin/env bash
# call 5: `dpl tune` on seed 53's tn matmul below 0.8x (223 x 1481 x 960, both operands' rows
# misaligned) and session 23's tn 3456 x 149 x 128: how far the space's best is from the pick
. scripts/gpu-env.sh
for e in "torch.randn(960,223).t() @ torch.randn(960,1481)" \
         "torch.randn(128,3456).t() @ torch.randn(128,149)"; do
  echo "== $e" | tee -a $OUT/call5-tune.txt
  timeout 110 python3 -m dpl.tools.dpl tune -c "$e" --budget-s 80 --trials 40 2>&1 | grep -v "^\s*$" | tail -8 | tee -a $OUT/call5-tune.txt
done
