. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 400 python3 .gpu/s18/wkab18.py .gpu/s18/wkcases.txt 2>&1 | grep -v Warning | tee $OUT/wkab18b.txt | grep -v "^   "
