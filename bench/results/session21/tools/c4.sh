#!/usr/bin/env bash
# call 4: programs with an M of 1 (decode) against their schedules before; an unseen seed's sweep
. scripts/gpu-env.sh
T=bench/results/session21/tools
timeout 280 python3 $T/decode21.py 2>&1 | grep -v -i warn | tee $OUT/call4-decode21.txt
timeout 285 python3 bench/sweep.py --seed 43 --modes eager,compile --budget-s 240 --target-ms 40 \
  --json $OUT/h200-2026-11-29-s21-seed43.json --out $OUT > $OUT/call4-sweep43.txt 2>&1
echo "sweep 43 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call4-sweep43.txt
