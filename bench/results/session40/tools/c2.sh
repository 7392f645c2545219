#!/usr/bin/env bash
# call 2: the canary; the rest of the sixth batch (call 1 stopped in sage_mean) in groups, each
# under its own time limit, so one slow case does not take the others' time
. scripts/gpu-env.sh
T=bench/results/session40/tools
timeout 50 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call2-canary.txt 2>&1; grep -A2 "^case" $OUT/call2-canary.txt
i=0
for g in 'adam|fake_quant|int8|conv3d|lrn' 'embbag|colour|gauss|sobel|giou' 'median|running|logcum|sqrelu|geglu' 'trilinear|t5_b|instnorm|wsconv|grn' 'patch_merge|lm_loss|bucketize|quantile'; do
  i=$((i+1))
  timeout 100 python3 $T/ab40.py --cases "$g" $OUT/call2-ab40-$i.json > $OUT/call2-ab40-$i.txt 2>&1; echo "group $i rc=$?"
  grep -v Warning $OUT/call2-ab40-$i.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ +[0-9]" | tail -6
done
