#!/usr/bin/env bash
# call 10 (final tree, 066e757): every frontend op on the GPU against PyTorch (the 14 programs
# captured through PyTorch's decompositions among them); those 14 under compute-sanitizer memcheck
. scripts/gpu-env.sh
NEW="cross_entropy|nll_loss|mse_loss|l1_loss|bce_with|einsum|baddbmm|roll|repeat_interleave|pixel_shuffle|cosine"
timeout 170 python3 tests/test_frontend_ops_gpu.py > $OUT/call10-frontend-gpu.txt 2>&1
echo "rc=$?"; grep -E "\| NO \||ops match" $OUT/call10-frontend-gpu.txt; grep -E "$NEW" $OUT/call10-frontend-gpu.txt
timeout 70 compute-sanitizer --tool memcheck --report-api-errors no python3 tests/test_frontend_ops_gpu.py "$NEW" 2>&1 | grep -E "ops match|ERROR SUMMARY" | tee $OUT/call10-san.txt
