#!/usr/bin/env bash
# call 7: held columns (hold-rows at a middle dim) against before, on the 19 sweep programs they
# change; GPU tests of hold-rows and the norms; compute-sanitizer on held columns
. scripts/gpu-env.sh
timeout 330 python3 bench/results/session20/tools/holdab20.py 2>&1 | grep -v Warn | tee $OUT/call7-holdab20.txt | tail -26
python3 -m pytest -q -m gpu tests/test_hold_rows.py tests/test_norm_schedule.py 2>&1 | tail -2 | tee $OUT/call7-pytest.txt
timeout 90 compute-sanitizer --tool memcheck --report-api-errors no python3 bench/results/session20/tools/san20.py 2>&1 | tail -5 | tee $OUT/call7-san.txt
timeout 90 compute-sanitizer --tool racecheck python3 bench/results/session20/tools/san20.py 2>&1 | tail -2 | tee -a $OUT/call7-san.txt
