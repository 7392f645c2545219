#!/usr/bin/env bash
# call 2: sessions 47-48's kernels under memcheck, racecheck and synccheck (sanitize48.py); the
# suite's 54 cases after the index simplifier's nested mod (341e905); per-kernel times of the
# ninth batch's cases below eager
. scripts/gpu-env.sh
T=bench/results/session48/tools
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck synccheck; do
  extra=""; [ $tool = memcheck ] && extra="--report-api-errors no"
  timeout 90 "$cs" --tool $tool $extra --print-limit 20 python3 $T/sanitize48.py > $OUT/call2-$tool.txt 2>&1; echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|err " $OUT/call2-$tool.txt | tail -9
done
timeout 250 python3 bench/results/session47/tools/suite47.py $OUT/call2-suite47.json > $OUT/call2-suite47.txt 2>&1; echo "suite47 rc=$?"
grep -v Warning $OUT/call2-suite47.txt | grep -v warnings.warn | grep -E "geomean" | tail -3
timeout 110 python3 $T/prof48.py "unet|dcgan|dense_block|gumbel|inception" > $OUT/call2-prof48.txt 2>&1; echo "prof48 rc=$?"; grep -v Warning $OUT/call2-prof48.txt | grep -v warnings.warn | tail -60
