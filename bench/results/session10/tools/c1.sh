set -e
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.max.sm --format=csv,noheader
CASES="0:bmm_tt_b21_25x1381x101 0:matmul_nt_4544x239x271 0:matmul_tt_512x2741x79 13:bmm_nn_b8_2807x241x41 13:linear_relu_2679x201to64 13:linear_mean_1049x1361to128 13:matmul_tn_613x665x64 14:matmul_nn_281x277x2816 14:matmul_nn_443x128x2339 15:bmm_tn_b27_149x139x79 15:matmul_tt_409x5651x311 16:bmm_tn_b16_16x2333x128 16:matmul_tn_64x3389x137 16:softmax_d-1_320x3x277x5"
timeout 300 python3 .gpu/prof.py "$CASES" 2>&1 | grep -v -i warn | tee $OUT/prof.txt || true
# SIMT trip time with n blocks on every SM (unsplit rows of the table), long K
timeout 100 python3 bench/mma_candidates.py --tiles "" --simt 4x4 --shapes 768x704x2048,768x1408x2048,768x2112x2048,768x2816x2048 --out $OUT 2>&1 | grep -v -i warn | tee $OUT/t44.txt || true
timeout 100 python3 bench/mma_candidates.py --tiles "" --simt 4x2 --shapes 768x352x2048,768x704x2048,768x1056x2048,768x1408x2048,768x1760x2048 --out $OUT 2>&1 | grep -v -i warn | tee $OUT/t42.txt || true
timeout 100 python3 bench/mma_candidates.py --tiles "" --simt 2x2 --shapes 384x352x2048,384x704x2048,384x1056x2048,384x1408x2048,384x1760x2048,384x2112x2048 --out $OUT 2>&1 | grep -v -i warn | tee $OUT/t22.txt || true
timeout 60 python3 bench/mma_candidates.py --tiles "" --simt 8x8 --shapes 1536x1408x2048,1536x2816x2048 --out $OUT 2>&1 | grep -v -i warn | tee $OUT/t88.txt || true
