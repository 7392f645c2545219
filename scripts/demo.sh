#!/usr/bin/env bash
# The main job: compile the seeds' RMSNorm example through every level and print each, ending in
# CUDA (set up .venv on first use). On a machine with a CUDA GPU the program is also run, checked
# against PyTorch and timed against eager and torch.compile.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
expr="${1:-torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))}"
for level in torch tensor loop tile kernel cuda; do
  echo "=== --ir $level: $expr"
  dpl compile -c "$expr" --ir "$level"
done
if python -c "import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)"; then
  echo "=== dpl run --bench --profile: $expr"
  dpl run -c "$expr" --bench --profile --modes eager,compile
else
  echo "=== no CUDA GPU here: skipping dpl run --bench (compile-only)"
fi
