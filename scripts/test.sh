#!/usr/bin/env bash
# The test command: the lit/FileCheck suite, then pytest (GPU tests skip where there is no GPU).
set -euo pipefail
cd "$(dirname "$0")/.."
lit -v test/lit
python -m pytest -q tests
