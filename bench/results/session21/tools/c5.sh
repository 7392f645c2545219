#!/usr/bin/env bash
# call 5: narrow padded column reductions against before; seed 43's reduce, softmax and norm
# classes again into its sweep file (the final tree)
. scripts/gpu-env.sh
T=bench/results/session21/tools
timeout 200 python3 $T/narrow21.py 2>&1 | grep -v -i warn | tee $OUT/call5-narrow21.txt
J=bench/results/sweep/h200-2026-11-29-s21-seed43.json
timeout 200 python3 bench/sweep.py --seed 43 --classes reduce,softmax,norm --modes eager,compile --merge --json $J --budget-s 170 --target-ms 40 --out $OUT > $OUT/call5-sweep43.txt 2>&1
echo "sweep rc=$?"; grep -E "geomean|worst|wrong|below|not run|amax_d1_71" $OUT/call5-sweep43.txt | head; cp $J $OUT/
