. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 200 python3 .gpu/s18/fillab18b.py .gpu/s18/fillcases.txt 2>&1 | grep -v Warning | tee $OUT/fillab18b.txt
