#!/usr/bin/env bash
# call 6: the wgmma flash kernel after the softmax rework; suite cases whose CUDA changed, old
# (HEAD db06081, .gpu/head) against new, dpl and eager in each run
. scripts/gpu-env.sh
T=bench/results/session19/tools
python3 $T/att19.py 2>&1 | tee $OUT/call6-att19.txt
mkdir -p /tmp/pphead && ln -sfn $PWD/.gpu/head /tmp/pphead/dpl
C="linear_3584x3584,linear_3584x512_bias_s512,linear_3584x512_bias_s2048,sdpa"
(cd .gpu/head && PYTHONPATH=/tmp/site:/tmp/pphead timeout 230 python3 bench/suite.py --cases "$C" --modes eager --budget-s 200 --json $OUT/call6-suite-old.json 2>&1 | tail -14 | tee $OUT/call6-suite-old.txt)
timeout 230 python3 bench/suite.py --cases "$C" --modes eager --budget-s 200 --json $OUT/call6-suite-new.json 2>&1 | tail -14 | tee $OUT/call6-suite-new.txt
