#!/usr/bin/env bash
# call 6: the suite's operator cases and sweep seed 46 after every commit of the session; GPU parity
# of the ops the later commits touch (stacks, pools before linears, norms, convs); memcheck of a stack
. scripts/gpu-env.sh
T=bench/results/session47/tools
timeout 100 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "stack or pool or norm or conv or upsample or interp or rope" -p no:cacheprovider > $OUT/call6-gpu-ops.txt 2>&1; echo "gpu ops rc=$?"; tail -2 $OUT/call6-gpu-ops.txt; grep FAILED $OUT/call6-gpu-ops.txt | head
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 60 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 tests/test_frontend_ops_gpu.py "^stack|max_pool" > $OUT/call6-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|\| " $OUT/call6-memcheck.txt | tail -8
timeout 250 python3 $T/suite47.py $OUT/call6-suite47.json > $OUT/call6-suite47.txt 2>&1; echo "suite47 rc=$?"
grep -v Warning $OUT/call6-suite47.txt | grep -v warnings.warn | grep -E "^[a-zA-Z_0-9.-]+ |geomean|^case" | tail -57
