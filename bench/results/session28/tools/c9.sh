#!/usr/bin/env bash
# call 9: the float atomic max/min helpers under compute-sanitizer (sanitize28a.py)
. scripts/gpu-env.sh
bash bench/results/session27/tools/sanitize27.sh call9 60 bench/results/session28/tools/sanitize28a.py
