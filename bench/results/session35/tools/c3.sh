#!/usr/bin/env bash
# call 3: the tree (row4 dropped; unstaged SIMT tiles priced, order-blocks on matmuls, unit dims
# merged) against the base, over the short-K cases, the ordinary programs and sweep contractions
# it changes (ab35.py --host); its changed kernels under memcheck and racecheck
cd .s35 && . scripts/gpu-env.sh
T=bench/results/session35/tools
timeout 150 python3 $T/ab35.py $OUT/call3-shortk.json > $OUT/call3-shortk.txt 2>&1; echo "ab rc=$?"
grep -v Warn $OUT/call3-shortk.txt | grep -v warnings.warn | grep -A40 "^case"
timeout 200 python3 $T/ab35.py --ordinary --cases '^(lstm_cell_256x1024x1024|label_smooth_8192x1000|timestep_256x320|reflect_conv_4x64x128x128|masked_softmax_8x12x384x384|upconv_4x128x64x64|swin_window_8x56x56x96|pointnet_32x3x2048|gcn_4096x256to128|wavenet_16x128x4000|coordconv_8x64x64x64|shuffle_unit_16x240x28x28)$' $OUT/call3-ordinary.json > $OUT/call3-ordinary.txt 2>&1; echo "ord rc=$?"
grep -v Warn $OUT/call3-ordinary.txt | grep -v warnings.warn | grep -A20 "^case"
timeout 120 python3 $T/ab35.py --sweep 87 --cases '^(bmm_nt_b3_1023x1025x4099|linear_residual_4097x1024to4096|linear_relu_37x4032to4608|bmm_nn_b8_128x1024x1513|linear_residual_512x4096to2887|bmm_tt_b32_61x1037x257)$' $OUT/call3-s87.json > $OUT/call3-s87.txt 2>&1; echo "s87 rc=$?"
grep -v Warn $OUT/call3-s87.txt | grep -v warnings.warn | grep -A20 "^case"
timeout 100 python3 $T/ab35.py --sweep 88 --cases '^(linear_sum_4096x1277to8192|bmm_tn_b16_1024x1984x151|linear_relu_1920x2599to2048|linear_mean_2048x1024to4096)$' $OUT/call3-s88.json > $OUT/call3-s88.txt 2>&1; echo "s88 rc=$?"
grep -v Warn $OUT/call3-s88.txt | grep -v warnings.warn | grep -A20 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  timeout 100 "$cs" --tool $tool --report-api-errors no --print-limit 20 python3 $T/sanitize35.py > $OUT/call3-$tool.txt 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err " $OUT/call3-$tool.txt | tail -5
done
