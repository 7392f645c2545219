#!/usr/bin/env bash
# call 8: how far the default schedule of two short-K 1x1 convolutions is from the best point
# `dpl tune` measures (PointNet's 128 -> 1024 over 32 x 2048 points; CoordConv's 66 -> 64 over
# 8 x 64 x 64), for the note's "Left open"
. scripts/gpu-env.sh
for e in "torch.nn.functional.conv1d(torch.randn(32,128,2048), torch.randn(1024,128,1))" \
         "torch.nn.functional.conv2d(torch.randn(8,66,64,64), torch.randn(64,66,1,1))"; do
  timeout 140 python3 -m dpl.tools.dpl tune -c "$e" --budget-s 100 --no-tune-cache 2>&1 | grep -v Warning | tail -12
done
