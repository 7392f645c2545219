. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 330 python3 .gpu/s18/wkab18.py .gpu/s18/wkchanged.txt 2>&1 | grep -v Warning | tee $OUT/wkab18.txt | grep -v "^   "
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = racecheck ] && extra="--racecheck-report all"
  timeout 80 $cs --tool $tool --report-api-errors no $extra python3 .gpu/s18/san_wk.py > $OUT/san-wk-$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rel err' $OUT/san-wk-$tool.txt | tr '\n' ' ')"
done
python3 -c "import pytest" 2>/dev/null && timeout 120 python3 -m pytest -q -p no:cacheprovider -m gpu tests/test_whole_k.py tests/test_repack_gpu.py 2>&1 | tail -4
