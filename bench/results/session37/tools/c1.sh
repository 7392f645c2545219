#!/usr/bin/env bash
# call 1: the canary; GPU parity of this session's ops and of every op whose gather changed;
# their kernels under memcheck and racecheck; this session's programs against eager and
# torch.compile
. scripts/gpu-env.sh
T=bench/results/session37/tools
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call1-canary.txt 2>&1; grep -A2 "^case" $OUT/call1-canary.txt
timeout 150 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -p no:cacheprovider \
  -k "grid or gamma or digamma or copysign or signbit or ldexp or shift or i0e or gather or topk or sort or median or scatter or take or kthvalue or cross_entropy or nll" \
  > $OUT/call1-parity.txt 2>&1; echo "parity rc=$?"; tail -3 $OUT/call1-parity.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 100 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize37.py > $OUT/call1-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err |Error" $OUT/call1-memcheck.txt | tail -10
timeout 80 "$cs" --tool racecheck --print-limit 20 python3 $T/sanitize37.py > $OUT/call1-racecheck.txt 2>&1
echo "racecheck rc=$?"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|hazard" $OUT/call1-racecheck.txt | tail -4
timeout 230 python3 $T/ab37.py $OUT/call1-ab37.json > $OUT/call1-ab37.txt 2>&1; echo "ab37 rc=$?"
grep -v Warning $OUT/call1-ab37.txt | grep -v warnings.warn | grep -A16 "^case"
