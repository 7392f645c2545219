. scripts/gpu-env.sh
nvidia-smi --query-gpu=name --format=csv,noheader
VARIANTS=old,new BUDGET_S=90 timeout 150 python3 .gpu/s17/rows_ab.py softmax_1597x64x1117 layernorm_32x1024 rmsnorm_128x4096 layernorm_300x5000 softmax_2048x1025 softmax_607x21911 suite_rmsnorm_1x2048x4096 suite_softmax_1x28x2048x2048 rmsnorm_26560x2176 rmsnorm_2048x3584 2>&1 | grep -v -i warn | tee $OUT/rows_ab_final.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = racecheck ] && extra="--racecheck-report all"
  timeout 120 $cs --tool $tool --report-api-errors no $extra python3 .gpu/s17/san_rows.py > $OUT/san-$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rel err' $OUT/san-$tool.txt | tr '\n' ' ')"
done
timeout 200 python3 bench/sweep.py --seed 27 --modes eager,compile --budget-s 130 --target-ms 40 --out $OUT > $OUT/sweep27.txt 2>&1
echo sweep27 rc=$?; grep -E "geomean|worst|wrong|below|not run" $OUT/sweep27.txt
timeout 200 python3 bench/sweep.py --seed 0 --modes eager,compile --budget-s 130 --target-ms 40 --out $OUT > $OUT/sweep0.txt 2>&1
echo sweep0 rc=$?; grep -E "geomean|worst|wrong|below|not run" $OUT/sweep0.txt
