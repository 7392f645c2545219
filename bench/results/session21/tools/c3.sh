#!/usr/bin/env bash
# call 3: every frontend op on the GPU (the new ones among them), the new ones under memcheck;
# thin matmuls and vector-matrix products against their schedules before; sanitizers
. scripts/gpu-env.sh
T=bench/results/session21/tools
NEW="cumprod|cummax|cummin|unfold|sort|topk|kthvalue|median|argsort|msort|scatter|index_put|index_add|index_copy|var_mean|std_mean|instance_norm|sdpa_bool"
timeout 200 python3 tests/test_frontend_ops_gpu.py > $OUT/call3-frontend-gpu.txt 2>&1
echo "rc=$?"; grep -E "\| NO \||ops match" $OUT/call3-frontend-gpu.txt
timeout 90 compute-sanitizer --tool memcheck --report-api-errors no python3 tests/test_frontend_ops_gpu.py "$NEW" 2>&1 | grep -E "ops match|ERROR SUMMARY" | tee $OUT/call3-san-frontend.txt
timeout 150 python3 $T/thinvec21.py 2>&1 | grep -v Warn | tee $OUT/call3-thinvec21.txt
for tool in memcheck racecheck; do
  extra=""; [ $tool = memcheck ] && extra="--report-api-errors no"
  timeout 60 compute-sanitizer --tool $tool $extra python3 $T/san21.py 2>&1 | tail -4 | tee -a $OUT/call3-san21.txt
done
