#!/usr/bin/env bash
# call 2: the canary; small-matrix linear algebra programs against eager and torch.compile; GPU
# parity of this session's frontend ops (fft, FNO, Cholesky family, empty concat pieces); memcheck
# of fft and linear algebra programs (the FNO case fixed), racecheck of the same
. scripts/gpu-env.sh
T=bench/results/session45/tools
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call2-canary.txt 2>&1; grep -A2 "^case" $OUT/call2-canary.txt
timeout 200 python3 $T/linalg45.py $OUT/call2-linalg45.json > $OUT/call2-linalg45.txt 2>&1; echo "linalg45 rc=$?"
grep -v Warning $OUT/call2-linalg45.txt | grep -v warnings.warn | grep -E "^[a-zA-Z_0-9]+ |geomean|^case" | tail -10
timeout 150 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "fft or stft or fno or cholesky or cat_empty or linalg" -p no:cacheprovider > $OUT/call2-gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -3 $OUT/call2-gpu-tests.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 100 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize45.py > $OUT/call2-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err " $OUT/call2-memcheck.txt | tail -9
timeout 90 "$cs" --tool racecheck --print-limit 20 python3 $T/sanitize45.py > $OUT/call2-racecheck.txt 2>&1; echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY" $OUT/call2-racecheck.txt | tail -2
