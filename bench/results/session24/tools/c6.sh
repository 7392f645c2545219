#!/usr/bin/env bash
# call 6: wgmma 128 x 64 tiles A/B over a sample of the matmuls the change touches (not landed)
. scripts/gpu-env.sh
T=bench/results/session24/tools
timeout 330 python3 $T/tileab24.py $OUT/call6-tileab.json 2>&1 | grep -v -i warn > $OUT/call6-tileab.txt
echo "tileab rc=$?"; tail -34 $OUT/call6-tileab.txt
