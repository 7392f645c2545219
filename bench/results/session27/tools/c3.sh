#!/usr/bin/env bash
# call 3: 1-D pointwise of an odd count on float4s and a tail kernel against one float per
# thread (ab27w.py pw); column norms of 257-1024 channels fused and held on up to 32 lanes
# against the tree (ab27w.py wide)
. scripts/gpu-env.sh
D=bench/results/session27
timeout 200 python3 $D/tools/ab27w.py pw $D/pwlist.txt $OUT/call3-pw.json > $OUT/call3-pw.txt 2>&1
echo "pw rc=$?"; grep geomean $OUT/call3-pw.txt
timeout 300 python3 $D/tools/ab27w.py wide $D/fuselist.txt $OUT/call3-wide.json > $OUT/call3-wide.txt 2>&1
echo "wide rc=$?"; grep geomean $OUT/call3-wide.txt
