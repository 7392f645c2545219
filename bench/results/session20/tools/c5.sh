#!/usr/bin/env bash
# call 5: split_rows with UNSTAGED_ROW_FACTOR (the tree): the norms of call 4 again (dpl = the
# schedule's pick now), seed 41's norm class again into its sweep file, the norm GPU tests
. scripts/gpu-env.sh
timeout 300 python3 bench/results/session20/tools/norm20.py 2>&1 | grep -v Warn | tee $OUT/call5-norm20.txt
J=bench/results/sweep/h200-2026-11-29-s20-seed41.json
timeout 200 python3 bench/sweep.py --seed 41 --classes norm --modes eager,compile --merge --json $J --budget-s 150 --target-ms 40 --out $OUT > $OUT/call5-sweep41-norm.txt 2>&1
echo "sweep rc=$?"; grep -E "layernorm_last2_251|geomean|worst|wrong|below|not run" $OUT/call5-sweep41-norm.txt | head; cp $J $OUT/
python3 -m pytest -q -m gpu tests/test_norm_schedule.py 2>&1 | tail -2 | tee $OUT/call5-pytest.txt
