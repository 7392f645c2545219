#!/usr/bin/env bash
# The test command: set up .venv if needed, then the lit/FileCheck suite and pytest
# (tests marked `gpu` skip where no GPU is present). Fails on any failure. pytest's last line is
# its peak resident memory (tests/conftest.py), which must stay under 4 GB.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
lit -v test/lit
python -m pytest -q tests
