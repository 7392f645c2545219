#!/usr/bin/env bash
# call 3 (the final tree: fuse-elementwise leaves ops that read a broadcast alone): the canary;
# session 34's 55 ordinary programs; this session's programs; the GPU parity of this session's ops
. scripts/gpu-env.sh
T=bench/results/session37/tools
timeout 50 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call3-canary.txt 2>&1; grep -A2 "^case" $OUT/call3-canary.txt
timeout 230 python3 bench/results/session34/tools/ab34all.py $OUT/call3-ordinary.json > $OUT/call3-ordinary.txt 2>&1; echo "ord rc=$?"
grep -v Warning $OUT/call3-ordinary.txt | grep -v warnings.warn | grep -A58 "^case"
timeout 200 python3 $T/ab37.py $OUT/call3-ab37.json > $OUT/call3-ab37.txt 2>&1; echo "ab37 rc=$?"
grep -v Warning $OUT/call3-ab37.txt | grep -v warnings.warn | grep -A16 "^case"
timeout 90 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -p no:cacheprovider \
  -k "grid or gamma or digamma or copysign or signbit or ldexp or shift or i0e or gather or topk or erfinv or i0" > $OUT/call3-parity.txt 2>&1; echo "parity rc=$?"; tail -2 $OUT/call3-parity.txt
