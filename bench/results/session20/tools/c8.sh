#!/usr/bin/env bash
# call 8 (final tree, 1602261): GPU tests of hold-rows and the norms; seed 0's norm class again
# into its sweep file (rmsnorm_c_32x256x56x56 held)
. scripts/gpu-env.sh
python3 -m pytest -q -m gpu tests/test_hold_rows.py tests/test_norm_schedule.py 2>&1 | tail -2 | tee $OUT/call8-pytest.txt
J=bench/results/sweep/h200-2026-11-29-s20-seed0.json
timeout 200 python3 bench/sweep.py --seed 0 --classes norm --modes eager,compile --merge --json $J --budget-s 150 --target-ms 40 --out $OUT > $OUT/call8-sweep0-norm.txt 2>&1
echo "sweep rc=$?"; grep -E "rmsnorm_c_32x256|geomean|  norm|worst|wrong|below|not run" $OUT/call8-sweep0-norm.txt | head; cp $J $OUT/
