#!/usr/bin/env bash
# call 7: `dpl tune` on seed 42's linear + mean 128 x 704 -> 1152 (0.67x in call 6: 18 blocks of
# 128 x 128 on 132 SMs, split 2), then seed 42, every class (never swept before)
. scripts/gpu-env.sh
e="torch.nn.functional.linear(torch.randn(128,704), torch.randn(1152,704)).mean(1)"
echo "== $e" | tee $OUT/call7-tune.txt
timeout 95 python3 -m dpl.tools.dpl tune -c "$e" --budget-s 55 --trials 30 2>&1 | grep -v "^\s*$" | tail -8 | tee -a $OUT/call7-tune.txt
timeout 145 python3 bench/sweep.py --seed 42 --modes eager,compile --budget-s 125 --target-ms 40 \
  --json $OUT/h200-2026-11-29-s24-seed42.json --out $OUT > $OUT/call7-sweep42.txt 2>&1
echo "sweep 42 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call7-sweep42.txt
rm -f $OUT/*.png
