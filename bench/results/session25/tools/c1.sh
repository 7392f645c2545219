#!/usr/bin/env bash
# call 1: every candidate of 18 sweep matmuls (3 cliffs, under-filled grids, short K), modeled
# and measured (cands25.py), to fit the model of grids that do not fill the GPU
. scripts/gpu-env.sh
timeout 560 python3 bench/results/session25/tools/cands25.py \
  42:linear_mean_128x704to1152 53:matmul_tn_223x1481x960 42:bmm_tn_b32_509x983x64 \
  41:matmul_tn_64x1471x2589 41:bmm_nn_b3_64x1536x768 43:matmul_tt_384x2752x379 \
  44:matmul_nn_179x4096x3061 45:linear_sum_1151x960to128 46:matmul_tn_1024x1024x576 \
  48:linear_sum_64x407to6912 49:linear_mean_181x1301to355 51:bmm_nt_b27_128x763x512 \
  52:matmul_nn_115x4567x827 53:bmm_nn_b15_128x277x512 42:linear_silu_mul_64x275to960 \
  47:matmul_nn_331x509x1471 42:bmm_tt_b49_761x1024x64 50:matmul_nt_3449x1408x192 \
  $OUT/call1-cands.json > $OUT/call1-cands.txt 2>&1
echo "rc=$?"; grep -c "meas" $OUT/call1-cands.txt; tail -3 $OUT/call1-cands.txt
