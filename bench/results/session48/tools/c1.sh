#!/usr/bin/env bash
# call 1: the canary; the ninth batch (ordinary48) against eager and torch.compile (the two cases
# that crash on the host left out); StyleGAN2's modulated conv after its weight is staged (341e905)
. scripts/gpu-env.sh
T=bench/results/session48/tools
timeout 45 python3 bench/results/session35/tools/ab35.py --variants tree --cases pn_conv1d_128 > $OUT/call1-canary.txt 2>&1; grep -A2 "^case" $OUT/call1-canary.txt
timeout 90 python3 bench/results/session47/tools/ab47.py --cases "modconv" $OUT/call1-ab47.json > $OUT/call1-ab47.txt 2>&1; echo "ab47 rc=$?"
grep -v Warning $OUT/call1-ab47.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean" | tail -4
timeout 210 python3 $T/ab48.py --cases "llama|vit|unet|sppf|inception|dense_block|dcgan|seg_xent|gumbel|fixmatch|moco|protonet" $OUT/call1-ab48a.json > $OUT/call1-ab48a.txt 2>&1; echo "ab48a rc=$?"
grep -v Warning $OUT/call1-ab48a.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean" | tail -30
timeout 230 python3 $T/ab48.py --cases "crf|centernet|shaw|dcn|raft|gwc|linformer|performer|spec_accept|prefixlm" $OUT/call1-ab48b.json > $OUT/call1-ab48b.txt 2>&1; echo "ab48b rc=$?"
grep -v Warning $OUT/call1-ab48b.txt | grep -v warnings.warn | grep -E "^[a-z_0-9]+ |geomean" | tail -26
