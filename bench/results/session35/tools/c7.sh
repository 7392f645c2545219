#!/usr/bin/env bash
# call 7: SIMT_MAX_STEPS (1-2 K steps leave the tensor cores to SIMT) against the models' own
# pick (tc2), on contractions of at most 2 K steps of each layout; PointNet's 1x1 conv as the
# canary of the machine (calls 1-3: 0.90 ms, calls 4-6: 0.40)
cd .s35 && . scripts/gpu-env.sh
T=bench/results/session35/tools
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem,power.limit --format=csv,noheader
timeout 200 python3 $T/ab35.py --two-steps --variants tree,tc2 $OUT/call7-two.json > $OUT/call7-two.txt 2>&1; echo "rc=$?"
grep -v Warn $OUT/call7-two.txt | grep -v warnings.warn | grep -A20 "^case"
