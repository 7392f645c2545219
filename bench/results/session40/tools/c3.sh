#!/usr/bin/env bash
# call 3: the canary; scatters as atomics on the GPU (their GPU tests, the scatter ops' parity,
# memcheck and racecheck) and soft-capped attention's; GraphSAGE, soft-capped attention and
# quantile against eager / torch.compile (a dpl error printed); top-p and the repetition penalty
# (session 38's, now scatters) against eager; per-kernel times of the 3-D convolution
. scripts/gpu-env.sh
T=bench/results/session40/tools
timeout 40 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call3-canary.txt 2>&1; grep -A2 "^case" $OUT/call3-canary.txt
timeout 100 python3 -m pytest -q -m gpu tests/test_atomic_gpu.py tests/test_frontend_ops_gpu.py tests/test_softcap_attention.py -k "atomic or exact or index or scatter or softcap or edges or sdpa or put" -p no:cacheprovider > $OUT/call3-gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -3 $OUT/call3-gpu-tests.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 50 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize40.py > $OUT/call3-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err " $OUT/call3-memcheck.txt | tail -6
# racecheck: the scatter kernels use no shared memory (memcheck only)
timeout 90 python3 $T/ab40.py --cases 'sage|softcap|quantile' $OUT/call3-ab40.json > $OUT/call3-ab40.txt 2>&1; echo "ab40 rc=$?"
grep -v Warning $OUT/call3-ab40.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ +[0-9]" | tail -6
python3 -c "import json; [print(r['name'], (r.get('tree') or {}).get('error')) for r in json.load(open('$OUT/call3-ab40.json'))['cases'] if (r.get('tree') or {}).get('error')]" 2>&1 | cut -c1-600
timeout 45 python3 bench/results/session38/tools/ab38.py --cases 'top_p|rep_pen' --eager-only > $OUT/call3-ab38.txt 2>&1; echo "ab38 rc=$?"; grep -E "^[a-z_0-9]+ +[0-9]" $OUT/call3-ab38.txt | tail -3

