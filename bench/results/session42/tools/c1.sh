#!/usr/bin/env bash
# call 1: the canary; the n x n box against merging over row lengths (eager only); the merge
# sort's GPU tests (and session 40's pending ones); memcheck of forced merges
. scripts/gpu-env.sh
T=bench/results/session42/tools
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call1-canary.txt 2>&1; grep -A2 "^case" $OUT/call1-canary.txt
timeout 220 python3 $T/ab42.py --cal --variants box,merge --eager-only $OUT/call1-cal.json > $OUT/call1-cal.txt 2>&1; echo "cal rc=$?"
grep -v Warning $OUT/call1-cal.txt | grep -v warnings.warn | tail -12
timeout 190 python3 -m pytest -q -m gpu tests/test_merge_sort.py tests/test_topk_blocked.py tests/test_frontend_ops_gpu.py -k "sort or topk or median or kth or max_pool or unpool or cov or corrcoef or cartesian" -p no:cacheprovider > $OUT/call1-gpu-tests.txt 2>&1; echo "gpu tests rc=$?"; tail -4 $OUT/call1-gpu-tests.txt
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 120 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize42.py > $OUT/call1-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err " $OUT/call1-memcheck.txt | tail -6
