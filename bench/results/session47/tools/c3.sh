#!/usr/bin/env bash
# call 3: the det failure as a GPU test (call 2 gave it 60 s: too short to compile), then GPU parity
# of the ops with reductions and norms under the new arithmetic
. scripts/gpu-env.sh
timeout 240 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "two_kernels or linalg_inv_det" -p no:cacheprovider --durations=3 > $OUT/call3-det.txt 2>&1; echo "det test rc=$?"; tail -6 $OUT/call3-det.txt; grep -A3 FAILED $OUT/call3-det.txt | head
timeout 230 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "norm or softmax or var or std or cholesky or matmul or linear" -p no:cacheprovider > $OUT/call3-gpu-ops.txt 2>&1; echo "gpu ops rc=$?"; tail -2 $OUT/call3-gpu-ops.txt; grep FAILED $OUT/call3-gpu-ops.txt | head
