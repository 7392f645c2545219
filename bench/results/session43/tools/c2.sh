#!/usr/bin/env bash
# call 2: the canary; memcheck of the new lowerings, with time for all; fuse-loops' copy rule
# (`rule`) against copying every shared producer as before (`copies`) on the earlier programs
# whose loop IR it changes
. scripts/gpu-env.sh
T=bench/results/session43/tools
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call2-canary.txt 2>&1; grep -A2 "^case" $OUT/call2-canary.txt
timeout 200 "$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)" --tool memcheck --report-api-errors no --print-limit 20 python3 $T/sanitize43.py > $OUT/call2-memcheck.txt 2>&1; echo "memcheck rc=$?"; grep -E "ERROR SUMMARY|err " $OUT/call2-memcheck.txt | tail -6
timeout 300 python3 $T/ab43.py --earlier --eager-only --variants rule,copies --cases '^(topk8_4096|beam_step|median_64x8191|xent_4096|lm_loss|kldiv|moe_route|arcface|sinkhorn|encoder_layer|instnorm_8x64|label_smooth|argsort_128|mixer)' $OUT/call2-ab.json > $OUT/call2-ab.txt 2>&1; echo "ab rc=$?"
grep -v Warning $OUT/call2-ab.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean" | tail -16
