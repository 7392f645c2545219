#!/usr/bin/env bash
# call 5: GPU parity (float64 reference) of the frontend ops this session changed: transposed
# convolutions (phases), erfinv (Horner), i0 / i0e (Clenshaw), with inline-constants
. scripts/gpu-env.sh
timeout 300 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "conv_transpose or erfinv or i0 or lgamma or digamma or polygamma" -p no:cacheprovider > $OUT/call5-gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -4 $OUT/call5-gpu-tests.txt
