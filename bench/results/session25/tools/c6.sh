#!/usr/bin/env bash
# call 6: a padded tensor-core tile's fixed steps costed at its masked step, against today, over
# the two sweep programs it changes (fixedab25.py)
. scripts/gpu-env.sh
timeout 200 python3 bench/results/session25/tools/fixedab25.py $OUT/call6-fixedab.json > $OUT/call6-fixedab.txt 2>&1
echo "ab rc=$?"; tail -6 $OUT/call6-fixedab.txt
