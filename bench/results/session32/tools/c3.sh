#!/usr/bin/env bash
# call 3: the GPU tests of the frontend ops (convolutions now on the tensor cores), the mma paths
# and end to end; `dpl tune` on two 3x3 convolutions: how far the space's best is from the pick
. scripts/gpu-env.sh
timeout 240 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py tests/test_mma_gpu.py tests/test_e2e_gpu.py \
  -p no:cacheprovider 2>&1 | tail -3 | tee $OUT/call3-gpu-tests.txt
for e in "torch.nn.Conv2d(64,64,3,padding=1)(torch.randn(8,64,56,56))" \
         "torch.nn.Conv2d(256,256,3,padding=1)(torch.randn(16,256,14,14))"; do
  echo "== $e" | tee -a $OUT/call3-tune.txt
  timeout 100 python3 -m dpl.tools.dpl tune -c "$e" --budget-s 70 --trials 30 2>&1 | grep -v "^\s*$" | tail -10 | tee -a $OUT/call3-tune.txt
done
