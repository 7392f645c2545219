#!/usr/bin/env bash
# call 7: GPU parity of the last frontend ops (special.i1 / i1e, nextafter), memcheck of their kernels
. scripts/gpu-env.sh
timeout 100 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "i1 or nextafter" -p no:cacheprovider > $OUT/call7-gpu-ops.txt 2>&1; echo "gpu ops rc=$?"; tail -2 $OUT/call7-gpu-ops.txt; grep -A4 FAILED $OUT/call7-gpu-ops.txt | head -20
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 80 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 tests/test_frontend_ops_gpu.py "^i1|nextafter" > $OUT/call7-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|\| " $OUT/call7-memcheck.txt | tail -8
