"""GPU check of the tensor-core kernels of test/lit/translate (mma_sync.mlir: one warp of
mma.sync m16n8k8; wgmma.mlir: one warpgroup of wgmma m64n128k8 on 128-byte-swizzled shared
memory, compiled for sm_90a), both in 3xTF32: NVRTC-compiled, run on random inputs with the
output poisoned, compared with float64: ‖out − ref‖/‖ref‖ under 1e-5 (plain TF32 would be near
1e-3: the split is really there). Skipped without a GPU (wgmma: without sm_90).

    python3 -m pytest -q tests/test_mma_gpu.py
"""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from dpl.backend.runtime import Program

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU"),
]

ROOT = Path(__file__).resolve().parent.parent


def _run(name: str, shapes: dict[str, tuple[int, ...]], out: str):
    prog = Program.from_text((ROOT / "test/lit/translate" / name).read_text(), name)
    g = torch.Generator(device="cuda").manual_seed(0)
    inputs = {k: torch.randn(*s, device="cuda", generator=g) for k, s in shapes.items()}
    result = prog.run(inputs, out={out: torch.full(prog.buffers[out].shape, float("nan"), device="cuda")})
    torch.cuda.synchronize()
    ref = inputs["a"].double() @ inputs["b"].double().T
    return float((result[out].double() - ref).norm() / ref.norm())


def test_mma_sync_3xtf32_on_gpu():
    err = _run("mma_sync.mlir", {"a": (16, 8), "b": (8, 8)}, "c")
    assert err < 1e-5


@pytest.mark.skipif(
    not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0),
    reason="wgmma needs sm_90a",
)
def test_wgmma_3xtf32_on_gpu():
    err = _run("wgmma.mlir", {"a": (64, 32), "b": (128, 32)}, "c")
    assert err < 1e-5
