#!/usr/bin/env bash
# call 3: the det failure compiled with --fmad=false (the contraction diagnosis); GPU parity of
# the pad fix and of the ops whose statistics the whole-tensor split now takes; the canary
. scripts/gpu-env.sh
T=bench/results/session46/tools
timeout 90 python3 $T/det46.py --fmad-false > $OUT/call3-det-fmad-false.txt 2>&1; echo "det46 rc=$?"; cut -c1-250 $OUT/call3-det-fmad-false.txt | grep -v "^  after" | tail -8
timeout 240 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "pad or var or std or mean or norm or amax or amin or sum or logsumexp" -p no:cacheprovider > $OUT/call3-gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -3 $OUT/call3-gpu-tests.txt; grep FAILED $OUT/call3-gpu-tests.txt | head
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call3-canary.txt 2>&1; grep -A2 "^case" $OUT/call3-canary.txt
