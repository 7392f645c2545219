#!/usr/bin/env bash
# call 3: products over a short dim on the GPU; GPU parity of inv / det / solve with det's
# pivots multiplied in turn again; memcheck of the Cholesky family
. scripts/gpu-env.sh
T=bench/results/session45/tools
timeout 60 python3 $T/prod45.py > $OUT/call3-prod.txt 2>&1; echo "prod rc=$?"; grep err $OUT/call3-prod.txt
timeout 150 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "linalg or cholesky or cat_empty" -p no:cacheprovider > $OUT/call3-gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -3 $OUT/call3-gpu-tests.txt
# the same parity test on the code before this session (pre45/: git archive 0878821, not committed)
mkdir -p /tmp/pp0 && ln -sfn "$PWD/pre45" /tmp/pp0/dpl
(cd pre45 && PYTHONPATH=/tmp/site:/tmp/pp0 timeout 120 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "linalg_inv" -p no:cacheprovider > $OUT/call3-gpu-tests-pre.txt 2>&1; echo "pre-session gpu test rc=$?"; tail -2 $OUT/call3-gpu-tests-pre.txt)
