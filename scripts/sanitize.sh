#!/usr/bin/env bash
# Every bench suite case (at the shapes scripts/sanitize.py's SUITE lists: the decoder layers at
# seq 128, the other cases at fewer rows where that keeps their kernels), the seeds' examples and
# every frontend op, under compute-sanitizer memcheck, racecheck and synccheck. Prints one line
# per kernel and tool and exits 1 on any finding (racecheck warnings included) or failed case.
#
#   bash scripts/sanitize.sh [--cases REGEX]        # on a GPU machine (source scripts/gpu-env.sh
#                                                   # first on the lent device)
# Work files (compiled cases, one log per tool) go to $SANITIZE_DIR (default /tmp/dpl-sanitize).
set -uo pipefail
cd "$(dirname "$0")/.."
dir="${SANITIZE_DIR:-/tmp/dpl-sanitize}"
cs="${COMPUTE_SANITIZER:-$(command -v compute-sanitizer || ls /usr/local/cuda*/bin/compute-sanitizer 2>/dev/null | head -1)}"
if [ -z "$cs" ]; then
  echo "sanitize: compute-sanitizer not found (set COMPUTE_SANITIZER)" >&2
  exit 2
fi
rm -rf "$dir"
python3 scripts/sanitize.py prepare "$dir" "$@" > "$dir.prepare.log" 2>&1 || {
  tail -20 "$dir.prepare.log"
  exit 2
}
for tool in memcheck racecheck synccheck; do
  extra=()
  [ "$tool" = racecheck ] && extra=(--racecheck-report all)
  start=$SECONDS
  "$cs" --tool "$tool" --report-api-errors no --print-limit 100 "${extra[@]}" \
    python3 scripts/sanitize.py run "$dir" > "$dir/$tool.log" 2>&1
  echo "sanitize: $tool took $((SECONDS - start)) s (exit $?)" >&2
done
python3 scripts/sanitize.py report "$dir"
