#!/usr/bin/env bash
# call 2: the long-row sorts under the tree against eager and torch.compile; top-k merging
# (the tree) against blocks (`box`: `_sort_plan` off)
. scripts/gpu-env.sh
T=bench/results/session42/tools
timeout 40 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call2-canary.txt 2>&1; grep -A2 "^case" $OUT/call2-canary.txt
timeout 400 python3 $T/ab42.py --cases '^(?!topk_(50|100)_)' $OUT/call2-ab42.json > $OUT/call2-ab42.txt 2>&1; echo "ab42 rc=$?"
grep -v Warning $OUT/call2-ab42.txt | grep -v warnings.warn | tail -28
timeout 140 python3 $T/ab42.py --cases 'topk_(50|100)_' --variants tree,box --eager-only $OUT/call2-topk.json > $OUT/call2-topk.txt 2>&1; echo "topk rc=$?"
grep -v Warning $OUT/call2-topk.txt | grep -v warnings.warn | tail -5
