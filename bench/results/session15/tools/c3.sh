. scripts/gpu-env.sh
nvidia-smi --query-gpu=name --format=csv,noheader
BUDGET_S=270 timeout 330 python3 .gpu/abtrip.py 0:linear_amax_16x449to8192 0:linear_gelu_640x64to512 6:linear_mean_23x623to4493 7:linear_amax_5209x189to16 7:linear_residual_29x640to3392 7:bmm_tn_b8_579x64x64 8:matmul_tt_19x3793x1088 9:linear_amax_19x2267to671 9:linear_mean_1856x269to29 11:bmm_tt_b16_192x128x59 11:matmul_nn_2176x128x97 12:bmm_tt_b5_143x256x109 12:linear_mean_5543x64to39 13:matmul_tn_613x665x64 14:linear_relu_16x2048to2816 15:linear_silu_mul_5791x1024to29 15:bmm_tt_b3_23x1173x192 16:linear_mean_1421x23to320 16:bmm_nt_b32_31x128x1709 16:linear_amax_29x1088to6016 18:linear_gelu_16x2624to6133 18:linear_mean_2048x64to192 19:linear_sum_1149x64to255 21:matmul_tt_2048x169x25 21:matmul_nn_607x23x3072 21:bmm_nt_b64_64x21x1024 22:matmul_tt_97x1201x97 22:linear_residual_1127x47to320 23:linear_mean_2048x21to155  2>$OUT/abtrip.err | tee $OUT/abtrip.txt
echo rc=$?
tail -2 $OUT/abtrip.err
