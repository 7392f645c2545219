#!/usr/bin/env bash
# call 2: the short-K cases with the N-major float4 fill (row4) and SIMT_MAX_STEPS 0 (tc2) beside
# the base; the contractions of unseen sweep seeds 87 and 88 that the session's changes touch
# (host: ab35.py --sweep N --host); the row4 fills under memcheck and racecheck
cd .s35 && . scripts/gpu-env.sh
T=bench/results/session35/tools
timeout 240 python3 $T/ab35.py $OUT/call2-shortk.json > $OUT/call2-shortk.txt 2>&1; echo "ab rc=$?"
grep -v Warn $OUT/call2-shortk.txt | grep -v warnings.warn | grep -A40 "^case"
timeout 150 python3 $T/ab35.py --sweep 87 --variants base,tree --cases '^(matmul_nn_1000x1000x1000|bmm_nn_b4_2048x2048x2048|matmul_tn_2048x2048x2048|bmm_nt_b3_1023x1025x4099|linear_residual_4097x1024to4096|matmul_tt_2432x2411x239|bmm_nn_b8_128x1024x1513|bmm_nn_b55_443x256x512|linear_residual_512x4096to2887)$' $OUT/call2-s87.json > $OUT/call2-s87.txt 2>&1; echo "s87 rc=$?"
grep -v Warn $OUT/call2-s87.txt | grep -v warnings.warn | grep -A20 "^case"
timeout 150 python3 $T/ab35.py --sweep 88 --variants base,tree --cases '^(linear_sum_4096x1277to8192|bmm_tn_b16_1024x1984x151|linear_relu_1920x2599to2048|linear_mean_2048x1024to4096|matmul_nn_809x128x2393)$' $OUT/call2-s88.json > $OUT/call2-s88.txt 2>&1; echo "s88 rc=$?"
grep -v Warn $OUT/call2-s88.txt | grep -v warnings.warn | grep -A20 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 60 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 $T/sanitize35.py > $OUT/call2-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err " $OUT/call2-$tool.txt | tail -7
done
