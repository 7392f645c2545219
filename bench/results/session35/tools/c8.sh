#!/usr/bin/env bash
# call 8 (the final tree): the canary (PointNet's 1x1 conv: 0.40 ms on a normal machine); unseen
# sweep seed 89; every ordinary program of session 34 against eager; the frontend's new ops under
# memcheck and their GPU parity tests
cd .s35 && . scripts/gpu-env.sh
T=bench/results/session35/tools
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
timeout 60 python3 $T/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call8-canary.txt 2>&1; grep -A2 "^case" $OUT/call8-canary.txt
timeout 190 python3 bench/sweep.py --seed 89 --modes eager,compile --budget-s 150 --target-ms 40 \
  --json $OUT/h200-2026-12-01-s35-seed89.json --out $OUT > $OUT/call8-sweep89.txt 2>&1
echo "sweep 89 rc=$?"; grep -E "geomean|worst|wrong|below|not run" $OUT/call8-sweep89.txt
rm -f $OUT/*.png
timeout 200 python3 bench/results/session34/tools/ab34all.py $OUT/call8-ordinary.json > $OUT/call8-ordinary.txt 2>&1; echo "ord rc=$?"
grep -v Warning $OUT/call8-ordinary.txt | grep -v warnings.warn | grep -A58 "^case"
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 60 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize35b.py > $OUT/call8-memcheck.txt 2>&1
echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err |Error" $OUT/call8-memcheck.txt | tail -8
timeout 80 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "hypot or erfinv or i0 or logcumsumexp or histc or pdist or nanmedian or cdist" -p no:cacheprovider 2>&1 | tail -2
