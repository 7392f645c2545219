#!/usr/bin/env bash
# The main job: compile the seeds' RMSNorm example through every implemented level and print each
# (set up .venv on first use). On a machine with a GPU the compiled program is also run and timed
# once the runtime lands (see README, Status).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/setup.sh
expr="${1:-torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))}"
for level in torch tensor loop tile; do
  echo "=== --ir $level: $expr"
  dpl compile -c "$expr" --ir "$level"
done
echo "=== CUDA from a kernel-level program (test/lit/dialects/kernel/roundtrip.mlir)"
dpl-translate --to-cuda test/lit/dialects/kernel/roundtrip.mlir
