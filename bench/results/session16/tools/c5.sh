. scripts/gpu-env.sh
timeout 200 python3 bench/sweep.py --seed 27 --modes eager,compile --budget-s 130 --target-ms 40 --out $OUT > $OUT/sweep27.txt 2>&1
echo sweep27 rc=$?; grep -E "geomean|worst|wrong|below" $OUT/sweep27.txt
timeout 200 python3 bench/sweep.py --seed 0 --modes eager,compile --budget-s 130 --target-ms 40 --out $OUT > $OUT/sweep0.txt 2>&1
echo sweep0 rc=$?; grep -E "geomean|worst|wrong|below|not run" $OUT/sweep0.txt
