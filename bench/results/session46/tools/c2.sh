#!/usr/bin/env bash
# call 2: session 45's det parity failure with multiply-adds contracted by the printer
# (--fmad=false); GPU parity of the argmax / pivoting ops; the printer's contraction against
# NVRTC's on the suite's operator cases
. scripts/gpu-env.sh
T=bench/results/session46/tools
timeout 90 python3 $T/det46.py > $OUT/call2-det.txt 2>&1; echo "det46 rc=$?"; cut -c1-250 $OUT/call2-det.txt | tail -8
timeout 150 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "linalg or cholesky or argmax or argmin or max_pool or sort or median or mode or kthvalue or topk" -p no:cacheprovider > $OUT/call2-gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -3 $OUT/call2-gpu-tests.txt
timeout 330 python3 $T/fma46.py --only suite $OUT/call2-fma46-suite.json > $OUT/call2-fma46-suite.txt 2>&1; echo "fma46 rc=$?"
grep -v Warning $OUT/call2-fma46-suite.txt | grep -v warnings.warn | grep -E "^[a-zA-Z_0-9.-]+ |geomean|^case" | tail -20
