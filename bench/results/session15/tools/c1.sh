set -o pipefail
. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem --format=csv
L="0:matmul_tt_512x2741x79 3:matmul_tt_971x863x75 13:bmm_nn_b8_2807x241x41 13:matmul_tn_613x665x64 11:matmul_nn_2176x128x97 22:matmul_tt_97x1201x97 24:bmm_tt_b15_67x907x64 12:bmm_tt_b5_143x256x109 8:linear_amax_3648x43to512 24:bmm_nt_b8_493x384x91 24:matmul_nn_1984x512x47 3:bmm_tt_b55_541x64x64 7:bmm_tn_b8_579x64x64 19:linear_sum_4096x45to1984 13:linear_gelu_8192x59to2893 19:linear_amax_5056x89to2048 9:linear_silu_mul_7680x64to457 11:linear_relu_5153x113to1216 4:linear_mean_839x47to5857 0:bmm_tn_b36_433x256x32 2:bmm_tt_b43_57x401x64 8:matmul_nn_457x2048x64 16:matmul_nt_2217x3979x127 mm:8192:4096:64:nt mm:512:512:64:nt:64 mm:4096:4096:96:nn 18:matmul_tt_3200x1024x64 20:linear_silu_mul_2281x64to4480"
BUDGET_S=300 timeout 420 python3 .gpu/shortk.py "$L" > $OUT/shortk.jsonl 2> $OUT/shortk.err
echo rc=$?
grep "^#" $OUT/shortk.jsonl
tail -5 $OUT/shortk.err
