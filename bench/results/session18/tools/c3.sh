. scripts/gpu-env.sh
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
timeout 330 python3 .gpu/s18/ctab18.py 2>&1 | grep -v Warning | tee $OUT/ctab18.txt | grep -v "^   "
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = racecheck ] && extra="--racecheck-report all"
  timeout 80 $cs --tool $tool --report-api-errors no $extra python3 .gpu/s18/san_cols.py > $OUT/san-$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rel err' $OUT/san-$tool.txt | tr '\n' ' ')"
done
