set -o pipefail
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv,noheader
BUDGET_S=330 timeout 420 python3 .gpu/ab32.py 0:linear_gelu_640x64to512 4:linear_mean_127x64to1344 5:linear_amax_353x16to347 5:linear_silu_mul_1216x89to101 6:linear_mean_23x623to4493 7:bmm_tn_b8_579x64x64 11:bmm_tt_b16_192x128x59 11:matmul_nn_2176x128x97 12:bmm_tt_b5_143x256x109 12:linear_mean_5543x64to39 13:linear_residual_64x32to2176 13:matmul_tn_613x665x64 15:linear_silu_mul_5791x1024to29 16:linear_amax_29x1088to6016 16:linear_mean_1421x23to320 17:matmul_tn_101x1181x64 18:linear_mean_2048x64to192 18:matmul_nn_127x1715x41 19:linear_gelu_512x109to467 19:linear_sum_1149x64to255 19:matmul_tt_41x3200x23 20:bmm_tn_b2_256x512x55 20:linear_mean_2173x73to64 21:matmul_tt_2048x169x25 22:linear_amax_1215x101to127 22:linear_residual_1127x47to320 22:matmul_tt_35x2304x16 22:matmul_tt_97x1201x97 23:bmm_tn_b4_256x149x19 23:linear_mean_2048x21to155 23:linear_mean_75x23to1280 23:linear_silu_mul_1553x64to157 25:bmm_nt_b4_64x967x64 25:linear_gelu_85x97to4096  2>$OUT/ab32.err | tee $OUT/ab32.txt
echo rc=$?
tail -3 $OUT/ab32.err
BUDGET_S=80 timeout 150 python3 .gpu/shortk.py "mm:4096:4096:96:nt mm:4096:4096:96:tn mm:4096:4096:64:nn mm:4096:4096:80:nn mm:4096:4096:128:nn" > $OUT/shortk2.jsonl 2> $OUT/shortk2.err
grep "^#" $OUT/shortk2.jsonl
