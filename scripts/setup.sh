#!/usr/bin/env bash
# Create .venv (once) and install dpl with its test tools into it; source this file.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
if [ ! -x "$root/.venv/bin/dpl-opt" ]; then
  python3 -m venv "$root/.venv"
  "$root/.venv/bin/python" -m pip install -q --upgrade pip
  # torch==2.13.0: the CPU wheel on disk on our machines (find-links), PyPI's build elsewhere.
  "$root/.venv/bin/python" -m pip install -q torch==2.13.0
  "$root/.venv/bin/python" -m pip install -q -e "$root[dev]"
fi
export PATH="$root/.venv/bin:$PATH"
