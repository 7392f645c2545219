#!/usr/bin/env bash
# call 4: the eighth batch of ordinary programs (ordinary47.py) against eager and torch.compile;
# GPU parity of this session's frontend ops, and memcheck of their kernels
. scripts/gpu-env.sh
T=bench/results/session47/tools
timeout 100 python3 -m pytest -q -m gpu tests/test_frontend_ops_gpu.py -k "as_strided or fill_diagonal or tensor_split or aa_" -p no:cacheprovider > $OUT/call4-gpu-ops.txt 2>&1; echo "gpu ops rc=$?"; tail -2 $OUT/call4-gpu-ops.txt; grep FAILED $OUT/call4-gpu-ops.txt | head
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 90 "$cs" --tool memcheck --report-api-errors no --print-limit 20 python3 tests/test_frontend_ops_gpu.py "as_strided|fill_diagonal|aa_down" > $OUT/call4-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|\| " $OUT/call4-memcheck.txt | tail -9
timeout 380 python3 $T/ab47.py $OUT/call4-ab47.json > $OUT/call4-ab47.txt 2>&1; echo "ab47 rc=$?"
grep -v Warning $OUT/call4-ab47.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean" | tail -50
