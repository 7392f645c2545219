. scripts/gpu-env.sh
nvidia-smi --query-gpu=name --format=csv,noheader
CL="0:bmm_tt_b21_25x1381x101 0:matmul_nt_4544x239x271 0:matmul_tt_512x2741x79 13:bmm_nn_b8_2807x241x41 13:linear_relu_2679x201to64 13:linear_mean_1049x1361to128 13:matmul_tn_613x665x64 14:matmul_nn_281x277x2816 14:matmul_nn_443x128x2339 15:bmm_nt_b59_2048x64x2657 15:bmm_tn_b27_149x139x79 15:matmul_tt_409x5651x311 16:bmm_tn_b16_16x2333x128 16:matmul_tn_64x3389x137"
HO="10:matmul_tn_241x64x239 6:linear_relu_427x128to389 8:linear_sum_1599x128to115 3:linear_silu_mul_7873x679to59 13:matmul_nt_353x128x32 1:matmul_nt_1693x512x320 4:matmul_nt_5120x64x941 7:linear_relu_4637x2371to64 3:matmul_nn_1600x32x71 12:bmm_tt_b5_143x256x109"
timeout 560 python3 .gpu/cands2.py "$CL $HO" 2>&1 | grep -v -i warn | tee $OUT/cands2.txt
