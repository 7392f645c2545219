#!/usr/bin/env bash
# call 5: racecheck and synccheck of the new lowerings (sanitize43.py), memcheck having run in call 4
. scripts/gpu-env.sh
T=bench/results/session43/tools
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
timeout 250 "$cs" --tool racecheck --print-limit 20 python3 $T/sanitize43.py > $OUT/call5-racecheck.txt 2>&1; echo "racecheck rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err " $OUT/call5-racecheck.txt | tail -6
timeout 250 "$cs" --tool synccheck --print-limit 20 python3 $T/sanitize43.py > $OUT/call5-synccheck.txt 2>&1; echo "synccheck rc=$?"; grep -E "ERROR SUMMARY|err " $OUT/call5-synccheck.txt | tail -6
