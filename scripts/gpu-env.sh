#!/usr/bin/env bash
# Source on a bare GPU machine that cannot reach a registry (the lent device): install the wheels
# carried in .whl (xdsl and its pure-Python deps) and make this checkout importable as `dpl`.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl
mkdir -p /tmp/pp && ln -sfn "$PWD" /tmp/pp/dpl
# the kernel cache stays at its default, the user's private cache directory (backend/cache.py)
export PYTHONPATH=/tmp/site:/tmp/pp PYTHONUNBUFFERED=1
