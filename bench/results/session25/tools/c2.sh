#!/usr/bin/env bash
# call 2: the tensor-core candidates of 16 larger sweep matmuls (grids that fill the GPU, long K),
# modeled and measured (cands25.py --tc-only), the other half of the data for the wave model
. scripts/gpu-env.sh
timeout 570 python3 bench/results/session25/tools/cands25.py --tc-only \
  0:matmul_nn_1000x1000x1000 0:bmm_nn_b4_2048x2048x2048 0:linear_sum_4096x1024to1024 \
  0:matmul_tn_2048x2048x2048 0:linear_residual_4097x1024to4096 0:matmul_nt_4096x4096x4096 \
  0:matmul_nn_3079x4081x257 0:matmul_tn_4723x128x2048 0:bmm_tt_b13_89x2048x593 \
  0:linear_sum_853x5669to1536 0:matmul_nt_4544x239x271 0:bmm_nn_b4_256x1171x1879 \
  0:linear_amax_4493x541to8192 44:bmm_tn_b2_2879x1107x1973 50:bmm_nn_b32_256x256x2661 \
  52:matmul_tn_5919x512x4096 \
  $OUT/call2-cands.json > $OUT/call2-cands.txt 2>&1
echo "rc=$?"; grep -c "meas" $OUT/call2-cands.txt; tail -3 $OUT/call2-cands.txt
