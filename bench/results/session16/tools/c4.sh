. scripts/gpu-env.sh
nvidia-smi --query-gpu=name --format=csv,noheader
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = racecheck ] && extra="--racecheck-report all"
  timeout 150 $cs --tool $tool --report-api-errors no $extra python3 .gpu/san.py mm:200:150:40:nn mm:131:67:33:tn mm:256:128:64:nt:3 > $OUT/san-$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rel err' $OUT/san-$tool.txt | tr '\n' ' ')"
done
BUDGET_S=80 timeout 120 python3 .gpu/abk.py 10:matmul_nt_64x1728x631 20:matmul_tn_64x1728x256 20:matmul_tn_79x575x512 21:bmm_tn_b7_57x512x128 23:matmul_nn_47x1024x1024 7:matmul_tn_115x1024x359 2:linear_sum_4096x2048to64 suite:qwen2.5-7b_layer_s128 2>$OUT/abk.err | tee $OUT/abk.txt
timeout 330 python3 bench/sweep.py --seed 27 --modes eager,compile --budget-s 220 --target-ms 40 --out $OUT > $OUT/sweep.txt 2>&1
echo sweep rc=$?
tail -25 $OUT/sweep.txt
