. scripts/gpu-env.sh
BUDGET_S=430 timeout 500 python3 .gpu/cands.py mm:4096:4096:96:nn mm:4096:4096:80:nn 3:bmm_tt_b21_97x47x199 7:matmul_tn_115x1024x359 6:linear_sum_64x3581to128 4:bmm_nt_b15_32x128x256 6:matmul_nt_269x307x337 2:matmul_nt_345x384x155 5:matmul_nn_131x1361x157 9:linear_amax_32x221to857 4:bmm_nn_b3_131x192x192 6:linear_relu_427x128to389 3:bmm_tt_b55_541x64x64 5:matmul_nt_2213x5347x16 19:linear_amax_5056x89to2048 8:matmul_nn_64x64x1024 10:matmul_nt_64x1728x631 10:matmul_tn_241x64x239 12:matmul_nn_64x2741x131 12:matmul_nt_261x77x1259 14:matmul_nn_128x199x256 14:bmm_tn_b8_115x41x128 11:matmul_tn_64x128x128 11:matmul_tt_128x448x307 13:matmul_nt_37x1137x256 15:matmul_tn_512x49x241 15:matmul_tt_409x5651x311 17:matmul_nn_79x128x395 17:bmm_tn_b36_383x177x64 13:bmm_nn_b8_2807x241x41 14:bmm_nt_b42_2048x53x128 16:bmm_nt_b9_709x512x16 10:bmm_nt_b19_661x256x21 2>$OUT/cands.err > $OUT/cands.jsonl
echo rc=$?
grep "^#" $OUT/cands.jsonl | cut -c1-400
tail -3 $OUT/cands.err
