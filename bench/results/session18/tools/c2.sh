. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 300 python3 .gpu/s18/mbab18.py 2>&1 | grep -v Warning | tee $OUT/mbab18.txt | grep -v "^   "
timeout 270 python3 .gpu/s18/colab18.py 2>&1 | grep -v Warning | tee $OUT/colab18.txt | grep -v "^   "
