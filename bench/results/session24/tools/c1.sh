#!/usr/bin/env bash
# call 1: by-rows fills A/B over the sweep programs they change; under compute-sanitizer; the
# whole-K GPU tests
. scripts/gpu-env.sh
T=bench/results/session24/tools
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader > $OUT/device.txt
timeout 330 python3 $T/rowab24.py $OUT/call1-rowab.json 2>&1 | grep -v -i warn > $OUT/call1-rowab.txt
echo "rowab rc=$?"; tail -40 $OUT/call1-rowab.txt
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = memcheck ] && extra="--report-api-errors no"
  timeout 60 compute-sanitizer --tool $tool $extra python3 $T/san24.py 2>&1 | grep -v -i warn | tail -4 | tee -a $OUT/call1-san24.txt
done
timeout 60 python3 -m pytest -q -m gpu tests/test_whole_k.py 2>&1 | tail -3 | tee $OUT/call1-wholek-gpu.txt
