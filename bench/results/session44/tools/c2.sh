#!/usr/bin/env bash
# call 2: per-kernel times of the transposed convolutions still slower than eager; the 3x3
# inverse (the one program whose IR the copy limit changes) with and without the limit
. scripts/gpu-env.sh
T=bench/results/session44/tools
for e in "torch.nn.ConvTranspose2d(128, 64, 4, 2, 1)(torch.randn(4, 128, 32, 32))" \
         "torch.nn.ConvTranspose1d(512, 256, 16, 8, 4)(torch.randn(8, 512, 256))" \
         "torch.nn.ConvTranspose2d(64, 32, 3, 2, 1, 1)(torch.randn(8, 64, 64, 64))" \
         "torch.nn.Conv2d(128, 256, 3, padding=1)(torch.randn(4, 128, 32, 32))"; do
  echo "== $e"; timeout 60 python3 -c "from dpl.tools.dpl import main; main()" run -c "$e" --bench --profile --modes eager 2>&1 | grep -v -i warn | tail -12
done > $OUT/call2-profile.txt; cat $OUT/call2-profile.txt
# (the inverse ran in the first try of this call: call2-inv.txt)

