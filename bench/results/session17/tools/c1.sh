. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 150 python3 .gpu/s17/eager.py 2>&1 | grep -v Warning | tail -12
for n in softmax_1597x64x1117 softmax_131072x700 softmax_32768x2999 layernorm_65536x1500 sum_d1_64x4099x1021 bmm_tt_21x25x1381x101 mm_tt_512x2741x79; do
  e=$(python3 -c "import sys; sys.path.insert(0,'.gpu/s17'); from cases import CASES; print(CASES['$n'][0])")
  echo "== $n"
  timeout 70 python3 -m dpl.tools.dpl tune -c "$e" --budget-s 40 --no-tune-cache --trials 48 > $OUT/tune_$n.txt 2>&1
  tail -8 $OUT/tune_$n.txt
done
