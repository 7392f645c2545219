#!/usr/bin/env bash
# call 2: the tree (fusion rules, torch.iota, unit loops) on ordinary33, the window A/B's
# programs and ordinary32, against eager; then unseen sweep seed 83 (eager and torch.compile)
. scripts/gpu-env.sh
T=bench/results/session33/tools
f() { grep -v Warning "$1" | grep -v warnings.warn | grep -A45 "^case"; }
timeout 150 python3 $T/ab33o.py $OUT/call2-ordinary33.json > $OUT/call2-ordinary33.txt 2>&1; echo "o33 rc=$?"; f $OUT/call2-ordinary33.txt
timeout 60 python3 $T/ab33s.py --tree $OUT/call2-windows.json > $OUT/call2-windows.txt 2>&1; echo "win rc=$?"; f $OUT/call2-windows.txt
timeout 140 python3 $T/ab33p.py $OUT/call2-ordinary32.json > $OUT/call2-ordinary32.txt 2>&1; echo "o32 rc=$?"; f $OUT/call2-ordinary32.txt
timeout 170 python3 bench/sweep.py --seed 83 --modes eager,compile --budget-s 150 --target-ms 40 \
  --json $OUT/h200-2026-11-30-s33-seed83.json --out $OUT > $OUT/call2-sweep83.txt 2>&1
echo "sweep 83 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call2-sweep83.txt
rm -f $OUT/*.png
