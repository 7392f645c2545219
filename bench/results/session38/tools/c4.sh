#!/usr/bin/env bash
# call 4 (the final tree): the canary; the end-to-end GPU tests; session 34's 55 ordinary
# programs against eager (collapse-matmul-axes' prologue factors change four of them)
. scripts/gpu-env.sh
timeout 50 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call4-canary.txt 2>&1; grep -A2 "^case" $OUT/call4-canary.txt
timeout 200 python3 -m pytest -q -m gpu tests/test_e2e_gpu.py tests/test_mma_gpu.py -p no:cacheprovider > $OUT/call4-gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -3 $OUT/call4-gpu-tests.txt
timeout 250 python3 bench/results/session34/tools/ab34all.py $OUT/call4-ordinary.json > $OUT/call4-ordinary.txt 2>&1; echo "ord rc=$?"
grep -v Warning $OUT/call4-ordinary.txt | grep -v warnings.warn | grep -A58 "^case"
