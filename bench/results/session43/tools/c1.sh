#!/usr/bin/env bash
# call 1: the canary; the seventh batch (all but the LSTM) against eager and torch.compile; the
# GPU parity of this session's ops; memcheck of the new lowerings
. scripts/gpu-env.sh
T=bench/results/session43/tools
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call1-canary.txt 2>&1; grep -A2 "^case" $OUT/call1-canary.txt
timeout 380 python3 $T/ab43.py --cases '^(?!lstm)' $OUT/call1-ab43.json > $OUT/call1-ab43.txt 2>&1; echo "ab43 rc=$?"
grep -v Warning $OUT/call1-ab43.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean" | tail -64
timeout 100 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "stack_of_reductions or gaussian_nll or linalg" -p no:cacheprovider > $OUT/call1-gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -3 $OUT/call1-gpu-tests.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 60 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize43.py > $OUT/call1-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err " $OUT/call1-memcheck.txt | tail -6
