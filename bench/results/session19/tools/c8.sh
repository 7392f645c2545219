#!/usr/bin/env bash
# call 8 (final): the flash kernels as landed; suite's attention, layer and a matmul case;
# GPU tests; compute-sanitizer on the landed kernels
. scripts/gpu-env.sh
T=bench/results/session19/tools
python3 $T/att19.py 2>&1 | tee $OUT/call8-att19.txt
timeout 200 python3 bench/suite.py --cases "linear_3584x3584_s2048,sdpa,layer" --modes eager,compile --budget-s 180 --json $OUT/call8-suite.json 2>&1 | tail -12 | tee $OUT/call8-suite.txt
python3 -m pytest -q -m gpu tests/test_attention.py tests/test_mma_gpu.py 2>&1 | tail -3 | tee $OUT/call8-pytest.txt
timeout 120 compute-sanitizer --tool memcheck --report-api-errors no python3 $T/san19.py 2>&1 | tail -5 | tee $OUT/call8-san.txt
timeout 120 compute-sanitizer --tool racecheck python3 $T/san19.py 2>&1 | tail -2 | tee -a $OUT/call8-san.txt
