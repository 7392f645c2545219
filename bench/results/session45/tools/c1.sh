#!/usr/bin/env bash
# call 1: the canary; Fourier-transform programs against eager (cuFFT) and torch.compile, with
# the direct / split thresholds as variants; GPU parity of the fft ops; memcheck of fft programs
. scripts/gpu-env.sh
T=bench/results/session45/tools
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call1-canary.txt 2>&1; grep -A2 "^case" $OUT/call1-canary.txt
timeout 300 python3 $T/fft45.py $OUT/call1-fft45.json > $OUT/call1-fft45.txt 2>&1; echo "fft45 rc=$?"
grep -v Warning $OUT/call1-fft45.txt | grep -v warnings.warn | grep -E "^[a-zA-Z_0-9]+ |geomean|^case" | tail -20
timeout 120 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "fft or stft or fno or roll" -p no:cacheprovider > $OUT/call1-gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -3 $OUT/call1-gpu-tests.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 100 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize45.py > $OUT/call1-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err " $OUT/call1-memcheck.txt | tail -8
