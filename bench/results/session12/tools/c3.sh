. scripts/gpu-env.sh
export XDG_CACHE_HOME=/tmp/cache3
timeout 250 python3 .gpu/s12/ab.py att suite 2>&1 | grep -v -i warn | tee $OUT/ab-att-suite.txt
timeout 280 python3 .gpu/s12/ab.py sweep13:matmul_tn_613x665x64,bmm_nn_b8_2807x241x41,linear_mean_1049x1361to128,linear_relu_2679x201to64 sweep16:matmul_tn_64x3389x137,softmax_d-1_320x3x277x5,bmm_tn_b16_16x2333x128 sweep0:matmul_tt_512x2741x79,bmm_tt_b21_25x1381x101,matmul_nt_4544x239x271 sweep15:bmm_tn_b27_149x139x79,matmul_tt_409x5651x311 sweep14:matmul_nn_281x277x2816,matmul_nn_443x128x2339 2>&1 | grep -v -i warn | tee $OUT/ab-cliffs.txt
