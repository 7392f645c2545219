#!/usr/bin/env bash
# call 8: GPU parity and memcheck of spherical_bessel_j0
. scripts/gpu-env.sh
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 80 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 tests/test_frontend_ops_gpu.py "spherical" > $OUT/call8-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|\| " $OUT/call8-memcheck.txt | tail -4
