#!/usr/bin/env bash
# call 5: dpl's wgmma flash kernel (the IR lowering) against mma.sync and eager; sanitizers; GPU tests
. scripts/gpu-env.sh
T=bench/results/session19/tools
python3 $T/att19.py 2>&1 | tee $OUT/call5-att19.txt
timeout 240 compute-sanitizer --tool memcheck --report-api-errors no python3 $T/san19.py 2>&1 | tail -6 | tee $OUT/call5-san.txt
timeout 240 compute-sanitizer --tool racecheck python3 $T/san19.py 2>&1 | tail -3 | tee -a $OUT/call5-san.txt
timeout 240 compute-sanitizer --tool synccheck python3 $T/san19.py 2>&1 | tail -3 | tee -a $OUT/call5-san.txt
python3 -m pytest -q -m gpu tests/test_attention.py 2>&1 | tail -3 | tee $OUT/call5-pytest.txt
