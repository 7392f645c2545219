#!/usr/bin/env bash
# call 7: the GPU tests of the areas this session changed (norms, held rows, end to end,
# frontend ops, reliability, runtime), on the final tree
. scripts/gpu-env.sh
timeout 270 python3 -m pytest -q -m gpu tests/test_norm_schedule.py tests/test_hold_rows.py \
  tests/test_e2e_gpu.py tests/test_reliability_gpu.py tests/test_frontend_ops_gpu.py \
  tests/test_kernel_cleanups.py tests/test_runtime_gpu.py -p no:cacheprovider 2>&1 | tail -5 | tee $OUT/call7-gpu-tests.txt
