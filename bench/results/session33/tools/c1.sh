#!/usr/bin/env bash
# call 1: ordinary33 against eager; the select A/B; the runtime's GPU tests (owed by session 32)
. scripts/gpu-env.sh
T=bench/results/session33/tools
timeout 250 python3 $T/ab33o.py $OUT/call1-ordinary.json > $OUT/call1-ordinary.txt 2>&1; echo "ord rc=$?"
grep -v Warning $OUT/call1-ordinary.txt | grep -v warnings.warn | grep -A40 "^case"
timeout 200 python3 $T/ab33s.py $OUT/call1-select.json > $OUT/call1-select.txt 2>&1; echo "sel rc=$?"
grep -v Warning $OUT/call1-select.txt | grep -v warnings.warn | grep -A20 "^case"
timeout 100 python3 -m pytest -q -m gpu tests/test_runtime_gpu.py -p no:cacheprovider 2>&1 | tail -3
