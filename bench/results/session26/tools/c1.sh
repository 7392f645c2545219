#!/usr/bin/env bash
# call 1: merge-columns counting split-reduce's blocks against session 25's rule over the 8 sweep
# reductions it changes (mergeab26.py); then every SIMT tile and split and every tensor-core
# tile of 17 SIMT-scheduled sweep matmuls (the slowest of seeds 0, 41-61, and some fast), modeled
# and measured (cands25.py --simt-all), to refit the SIMT model against the tensor cores'
. scripts/gpu-env.sh
timeout 150 python3 bench/results/session26/tools/mergeab26.py $OUT/call1-mergeab.json > $OUT/call1-mergeab.txt 2>&1
echo "ab rc=$?"; tail -13 $OUT/call1-mergeab.txt
timeout 420 python3 bench/results/session25/tools/cands25.py --simt-all \
  61:bmm_nn_b20_384x53x261 61:matmul_tt_397x128x2741 45:matmul_nn_2560x1152x63 0:bmm_tt_b21_25x1381x101 \
  49:matmul_nt_557x73x555 61:matmul_tn_4672x64x47 46:linear_silu_mul_192x229to2863 59:linear_mean_64x5135to1088 \
  52:matmul_nt_787x175x161 58:linear_mean_1871x4201to59 0:matmul_tt_512x2741x79 49:bmm_tn_b3_64x1973x256 \
  48:bmm_nt_b16_128x1491x113 42:bmm_tt_b49_761x1024x64 42:bmm_tn_b32_509x983x64 44:linear_sum_5760x29to3085 \
  48:linear_gelu_512x64to6659 \
  $OUT/call1-cands.json > $OUT/call1-cands.txt 2>&1
echo "cands rc=$?"; grep -c "meas" $OUT/call1-cands.txt; grep -A1 "^##" $OUT/call1-cands.txt | head -60
