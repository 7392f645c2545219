#!/usr/bin/env bash
# sanitize27.py under compute-sanitizer memcheck, racecheck and synccheck; each tool's log to
# $OUT/PREFIX-TOOL.txt and a summary line per case (calls 2 and 4; timeout S seconds a tool).
#   bash bench/results/session27/tools/sanitize27.sh PREFIX S [SCRIPT]
# (SCRIPT: another session's case list in place of sanitize27.py; session 28's sanitize28.sh)
cs=$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer | head -1)
for tool in memcheck racecheck synccheck; do
  extra=(); [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  timeout "$2" "$cs" --tool $tool --report-api-errors no --print-limit 20 "${extra[@]}" \
    python3 "${3:-bench/results/session27/tools/sanitize27.py}" > "$OUT/$1-$tool.txt" 2>&1
  echo "$tool rc=$?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|kernels, err" "$OUT/$1-$tool.txt" | sort | uniq -c
done
