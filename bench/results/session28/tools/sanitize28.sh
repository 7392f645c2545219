#!/usr/bin/env bash
# sanitize28.py under compute-sanitizer memcheck, racecheck and synccheck; each tool's log to
# $OUT/PREFIX-TOOL.txt and a summary line per case (timeout S seconds a tool).
#   bash bench/results/session28/tools/sanitize28.sh PREFIX S
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck synccheck; do
  extra=(); [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  timeout "$2" "$cs" --tool $tool --report-api-errors no --print-limit 20 "${extra[@]}" \
    python3 bench/results/session28/tools/sanitize28.py > "$OUT/$1-$tool.txt" 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|kernels, err" "$OUT/$1-$tool.txt" | sort | uniq -c
done
