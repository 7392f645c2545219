#!/usr/bin/env bash
# call 7: the wgmma flash kernel with exp2 (ex2.approx) and unmasked interior tiles; suite cases
# whose CUDA changed (linear: again, for the noise; the decoder layers), old (HEAD, .gpu/head)
# against new, each with eager
. scripts/gpu-env.sh
T=bench/results/session19/tools
python3 $T/att19.py 2>&1 | tee $OUT/call7-att19.txt
mkdir -p /tmp/pphead && ln -sfn $PWD/.gpu/head /tmp/pphead/dpl
C="linear_3584x3584_s512,linear_3584x3584_s2048,sdpa,layer"
(cd .gpu/head && PYTHONPATH=/tmp/site:/tmp/pphead timeout 260 python3 bench/suite.py --cases "$C" --modes eager --budget-s 230 --json $OUT/call7-suite-old.json 2>&1 | tail -14 | tee $OUT/call7-suite-old.txt)
timeout 260 python3 bench/suite.py --cases "$C" --modes eager --budget-s 230 --json $OUT/call7-suite-new.json 2>&1 | tail -14 | tee $OUT/call7-suite-new.txt
