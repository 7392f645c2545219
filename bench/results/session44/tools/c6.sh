#!/usr/bin/env bash
# call 6: the grouped transposed convolution's weight as row blocks (5e365b4): GPU parity of the
# transposed convolutions and memcheck of sanitize44.py (its 2-D case has groups 2)
. scripts/gpu-env.sh
T=bench/results/session44/tools
timeout 150 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "conv_transpose" -p no:cacheprovider > $OUT/call6-gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -2 $OUT/call6-gpu-tests.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 120 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize44.py > $OUT/call6-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err " $OUT/call6-memcheck.txt | tail -7
