#!/usr/bin/env bash
# call 4: every tensor-core and SIMT tile, split and repack choice of 10 short-K sweep matmuls
# (K of 63-109: the race's RACE_MIN_STEPS gate and the cliffs below 0.8x eager), modeled and
# measured (cands25.py --simt-all --repack)
. scripts/gpu-env.sh
timeout 480 python3 bench/results/session25/tools/cands25.py --simt-all --repack \
  62:matmul_tn_1472x1201x64 42:bmm_tn_b32_509x983x64 55:bmm_nn_b16_640x2011x89 62:bmm_tt_b16_2816x32x109 \
  47:linear_sum_6115x67to557 48:bmm_tt_b32_128x1216x67 57:linear_relu_6957x64to4177 62:matmul_nt_1344x4352x64 \
  45:matmul_nn_2560x1152x63 42:bmm_tt_b49_761x1024x64 \
  $OUT/call4-cands.json > $OUT/call4-cands.txt 2>&1
echo "cands rc=$?"; grep -c "meas" $OUT/call4-cands.txt; grep -A3 "^##" $OUT/call4-cands.txt | cut -c1-150 | head -60
