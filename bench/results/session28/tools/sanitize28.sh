#!/usr/bin/env bash
# sanitize28.py under compute-sanitizer memcheck, racecheck and synccheck (session 27's loop);
# each tool's log to $OUT/PREFIX-TOOL.txt and a summary line per case (timeout S seconds a tool).
#   bash bench/results/session28/tools/sanitize28.sh PREFIX S
exec bash bench/results/session27/tools/sanitize27.sh "$1" "$2" bench/results/session28/tools/sanitize28.py
