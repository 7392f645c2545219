. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
python3 -c "import pytest" 2>/dev/null && timeout 100 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_whole_k.py tests/test_repack_gpu.py tests/test_mma_gpu.py 2>&1 | tail -3
for s in 0 27; do
  cp .gpu/s18/prev/seed$s.json $OUT/h200-2026-11-29-s18-seed$s.json
  timeout 230 python3 bench/sweep.py --seed $s --classes matmul,bmm,linear_epilogue,linear_reduce --modes eager,compile --merge --json $OUT/h200-2026-11-29-s18-seed$s.json --budget-s 190 --target-ms 40 --out $OUT > $OUT/sweep$s.txt 2>&1
  echo "sweep $s rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/sweep$s.txt
done
