#!/usr/bin/env bash
# call 5: PointNet's 1x1 conv timed plainly and by the harness, clocks and power sampled alongside
cd .s35 && . scripts/gpu-env.sh
T=bench/results/session35/tools
nvidia-smi --query-gpu=clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_throttle_reasons.active --format=csv -lms 200 > $OUT/call5-smi.txt 2>&1 &
SMI=$!
timeout 200 python3 $T/diag35.py "pn_conv1d_128|lin_128to1024" > $OUT/call5-diag.txt 2>&1; echo "diag rc=$?"
kill $SMI
grep -v Warn $OUT/call5-diag.txt | grep -v warnings.warn | grep -E "us|kernel|k_|variant|dpl |eager " | head -40
sort $OUT/call5-smi.txt | uniq -c | sort -rn | head -12
