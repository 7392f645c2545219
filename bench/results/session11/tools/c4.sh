. scripts/gpu-env.sh
export DPL_CACHE_DIR=/tmp/cache4
CL="0:bmm_tt_b21_25x1381x101 0:matmul_nt_4544x239x271 0:matmul_tt_512x2741x79 13:bmm_nn_b8_2807x241x41 13:linear_relu_2679x201to64 13:linear_mean_1049x1361to128 13:matmul_tn_613x665x64 14:matmul_nn_281x277x2816 14:matmul_nn_443x128x2339 15:bmm_tn_b27_149x139x79 15:matmul_tt_409x5651x311 16:bmm_tn_b16_16x2333x128 16:matmul_tn_64x3389x137"
TRIALS=24 BUDGET=25 timeout 560 python3 .gpu/tunecl.py "$CL" 2>&1 | grep -v -i warn | tee $OUT/tunecl.txt
