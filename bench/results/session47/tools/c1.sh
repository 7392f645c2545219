#!/usr/bin/env bash
# call 1: arithmetic as written (--fmad=false + math.fma where dpl contracts): the det failure as a
# GPU test, GPU parity of ops with reductions, attention and matmuls
. scripts/gpu-env.sh
T=bench/results/session47/tools
timeout 200 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "two_kernels or linalg or det or cholesky or norm or softmax or var or std or matmul or linear or bmm or einsum or attention or conv" -p no:cacheprovider > $OUT/call1-gpu-ops.txt 2>&1; echo "gpu ops rc=$?"; tail -2 $OUT/call1-gpu-ops.txt; grep FAILED $OUT/call1-gpu-ops.txt | head
timeout 120 python3 -m pytest -q -m gpu tests/test_mma_gpu.py tests/test_e2e_gpu.py -p no:cacheprovider -x > $OUT/call1-gpu-mma-e2e.txt 2>&1; echo "gpu mma/e2e rc=$?"; tail -2 $OUT/call1-gpu-mma-e2e.txt; grep FAILED $OUT/call1-gpu-mma-e2e.txt | head
timeout 60 python3 -m pytest -q -m gpu tests/test_attention.py tests/test_softcap_attention.py -p no:cacheprovider > $OUT/call1-gpu-attn.txt 2>&1; echo "gpu attn rc=$?"; tail -2 $OUT/call1-gpu-attn.txt; grep FAILED $OUT/call1-gpu-attn.txt | head
