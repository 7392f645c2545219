#!/usr/bin/env bash
# call 1: the wgmma flash kernel (tree) against 1523695's, eager; its GPU tests and sanitizers;
# small-M matmuls on SIMT against tensor cores allowed
. scripts/gpu-env.sh
T=bench/results/session21/tools
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader | tee $OUT/call1-device.txt
python3 $T/att21.py 2>&1 | tee $OUT/call1-att21.txt
python3 -m pytest -q -m gpu tests/test_attention.py tests/test_mma_gpu.py 2>&1 | tail -3 | tee $OUT/call1-pytest.txt
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = memcheck ] && extra="--report-api-errors no"
  timeout 150 compute-sanitizer --tool $tool $extra python3 bench/results/session19/tools/san19.py 2>&1 | tail -3 | tee -a $OUT/call1-san.txt
done
timeout 200 python3 $T/smallm21.py 2>&1 | tee $OUT/call1-smallm21.txt
