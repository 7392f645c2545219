#!/usr/bin/env bash
# call 2: the pipelined wgmma flash kernel (tree) against session 19's (HEAD), eager; then GPU tests
# and compute-sanitizer on the tree's kernels
. scripts/gpu-env.sh
T=bench/results/session20/tools
python3 $T/att20.py 2>&1 | tee $OUT/call2-att20.txt
python3 -m pytest -q -m gpu tests/test_attention.py tests/test_mma_gpu.py 2>&1 | tail -3 | tee $OUT/call2-pytest.txt
timeout 120 compute-sanitizer --tool memcheck --report-api-errors no python3 bench/results/session19/tools/san19.py 2>&1 | tail -5 | tee $OUT/call2-san.txt
timeout 120 compute-sanitizer --tool racecheck python3 bench/results/session19/tools/san19.py 2>&1 | tail -2 | tee -a $OUT/call2-san.txt
timeout 120 compute-sanitizer --tool synccheck python3 bench/results/session19/tools/san19.py 2>&1 | tail -2 | tee -a $OUT/call2-san.txt
