#!/usr/bin/env bash
# call 5 (the final tree): the GPU tests of the frontend's ops (every op's parity, the new
# temporal shift and slice chain among them), the end-to-end and runtime GPU tests
. scripts/gpu-env.sh
timeout 520 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py tests/test_e2e_gpu.py tests/test_runtime_gpu.py \
  tests/test_reliability_gpu.py -p no:cacheprovider -x > $OUT/call5-gpu-tests.txt 2>&1; echo "rc=$?"; tail -4 $OUT/call5-gpu-tests.txt
