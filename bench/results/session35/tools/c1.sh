#!/usr/bin/env bash
# call 1: the short-K cases under the tree and with its changes patched out (ab35.py); the
# tuner's view of one 1x1 convolution (every point it measures, -v)
cd .s35 && . scripts/gpu-env.sh
T=bench/results/session35/tools
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 430 python3 $T/ab35.py $OUT/call1-shortk.json > $OUT/call1-shortk.txt 2>&1; echo "ab rc=$?"
grep -v Warn $OUT/call1-shortk.txt | grep -v warnings.warn | grep -A40 "^case"
timeout 100 python3 -m dpl.tools.dpl tune -v --budget-s 80 --no-tune-cache \
  -c "torch.nn.functional.conv2d(torch.randn(32,64,56,56), torch.randn(256,64,1,1))" > $OUT/call1-tune.txt 2>&1
echo "tune rc=$?"; grep -v "^//" $OUT/call1-tune.txt | tail -8
