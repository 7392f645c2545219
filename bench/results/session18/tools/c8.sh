. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 250 python3 .gpu/s18/fillab18.py 2>&1 | grep -v Warning | tee $OUT/fillab18.txt | grep -v "^   "
