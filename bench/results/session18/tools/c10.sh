. scripts/gpu-env.sh
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck; do
  extra=""; [ $tool = racecheck ] && extra="--racecheck-report all"
  timeout 70 $cs --tool $tool --report-api-errors no $extra python3 .gpu/s18/san_fill.py > $OUT/san-fill-$tool.txt 2>&1
  echo "$tool rc=$? $(grep -E 'ERROR SUMMARY|RACECHECK SUMMARY|rel err' $OUT/san-fill-$tool.txt | tr '\n' ' ')"
done
