. scripts/gpu-env.sh
VARIANTS=old,new BUDGET_S=120 timeout 170 python3 .gpu/s17/rows_ab.py 2>&1 | grep -v -i warn | tee $OUT/rows_ab_final.txt
for s in 27 0; do
  timeout 200 python3 bench/sweep.py --seed $s --classes reduce,softmax,norm --merge --json bench/results/sweep/h200-2026-11-29-s17-seed$s.json --modes eager,compile --budget-s 120 --target-ms 40 --out $OUT > $OUT/sweep$s.txt 2>&1
  echo sweep$s rc=$?; grep -E "geomean|worst|wrong|below|not run" $OUT/sweep$s.txt
  cp bench/results/sweep/h200-2026-11-29-s17-seed$s.json $OUT/
done
