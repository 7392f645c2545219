"""GPU check of the tensor-core kernels of test/lit/translate (mma_sync.mlir: one warp of
mma.sync m16n8k8; wgmma.mlir: one warpgroup of wgmma m64n128k8 on 128-byte-swizzled shared
memory, compiled for sm_90a), both in 3xTF32: NVRTC-compiled, run on random inputs with the
output poisoned, compared with float64: ‖out − ref‖/‖ref‖ under 1e-5 (plain TF32 would be near
1e-3: the split is really there); then linears through dpl.compile's default schedule (wgmma
kernels from tensorize-matmul + materialize-mma), held to fp32-level accuracy and to at most twice
PyTorch fp32's error (K up to 8192: the tensor cores' truncating accumulation is promoted), and
the opt-in tf32 precision. Skipped without a GPU (wgmma: without sm_90).

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


# ----------------------------------------------------------------------------- dpl.compile


def _on_tensor_cores() -> str:
    """The kernel pipeline with the schedule held to its tensor-core candidates (the model may
    prefer SIMT for a shape; these tests check the tensor-core kernels themselves)."""
    from dpl.transforms.pipelines import kernel_schedule

    return kernel_schedule(None).replace(",schedule,", ",schedule{tensor-cores=true},", 1)


def _linear_case(m: int, n: int, k: int, precision: str | None):
    from dpl.driver.compile import compile as dpl_compile

    g = torch.Generator().manual_seed(m + n + k)
    x, w = torch.randn(m, k, generator=g), torch.randn(n, k, generator=g) / k**0.5
    if precision is None:
        c = dpl_compile(torch.nn.functional.linear, x, w, pipeline=_on_tensor_cores())
    else:
        c = dpl_compile(torch.nn.functional.linear, x, w, precision=precision)
    xg, wg = x.cuda(), w.cuda()
    out = c(xg, wg, poison=True)
    ref = xg.double() @ wg.double().T
    eager = torch.nn.functional.linear(xg, wg)  # TF32 off (torch's default for matmul)
    err = float((out.double() - ref).norm() / ref.norm())
    eager_err = float((eager.double() - ref).norm() / ref.norm())
    return c, err, eager_err


@pytest.mark.skipif(
    not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0),
    reason="the tensor-core schedule targets sm_90a",
)
@pytest.mark.parametrize("m, n, k", [(512, 1024, 1024), (128, 2048, 2048), (256, 384, 512)])
def test_dpl_linear_on_tensor_cores(m, n, k):
    """The default schedule's wgmma kernels (128 x 2048 takes split-K): fp32-level accuracy,
    at most twice PyTorch fp32's error against float64."""
    c, err, eager_err = _linear_case(m, n, k, None)
    assert c.precision == "3xtf32"
    assert err < 1e-5 and err <= 2 * eager_err, (err, eager_err)


@pytest.mark.skipif(
    not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0),
    reason="the tensor-core schedule targets sm_90a",
)
@pytest.mark.parametrize("m, n, k", [(128, 3584, 3584), (256, 256, 8192)])
def test_dpl_linear_long_k_keeps_fp32_accuracy(m, n, k):
    """The tensor cores truncate their fp32 accumulation, so one accumulator chain over K = 3584
    had 61x cuBLAS fp32's error (bench/results/h100-2026-11-24-tc-probe.md); materialize-mma's
    promoted chains (one K step of 32 on a fresh fragment, added to fp32 accumulators) keep it
    within twice, split-K or not."""
    c, err, eager_err = _linear_case(m, n, k, None)
    assert c.precision == "3xtf32"
    assert err <= 2 * eager_err, (err, eager_err)


@pytest.mark.skipif(
    not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0),
    reason="the tensor-core schedule targets sm_90a",
)
def test_dpl_linear_tf32_is_less_accurate():
    c, err, eager_err = _linear_case(512, 1024, 1024, "tf32")
    assert c.precision == "tf32"
    assert 10 * eager_err < err < 1e-2


RAGGED = {
    # M, N, K off the tile: A's rows of 1000 as masked float4s
    "linear_1000x1000to999": ("lambda x, w: torch.nn.functional.linear(x, w)", (1000, 1000), (999, 1000)),
    # an odd K: per-element masked loads of both operands
    "matmul_nn_333x257x517": ("lambda a, b: a @ b", (333, 257), (257, 517)),
    # A stored [K, M], split-K
    "matmul_tn_4723x128x2048": ("lambda a, b: a.T @ b", (2048, 4723), (2048, 128)),
    # batched, both transposed
    "bmm_tt_b3_89x700x593": ("lambda a, b: a.transpose(1, 2) @ b.transpose(1, 2)", (3, 593, 89), (3, 700, 593)),
}


@pytest.mark.skipif(
    not torch.cuda.is_available() or torch.cuda.get_device_capability() != (9, 0),
    reason="the tensor-core schedule targets sm_90a",
)
@pytest.mark.parametrize("name", list(RAGGED))
def test_dpl_ragged_matmuls_on_tensor_cores(name):
    """Ragged M, N and K on the wgmma kernels (pad-matmul to the tile, masked loads and stores;
    tests/test_mma_ragged.py checks them on the CPU): the output poisoned, fp32-level accuracy,
    at most twice PyTorch fp32's error. Run it under compute-sanitizer (memcheck, racecheck)."""
    from dpl.driver.compile import compile as dpl_compile

    text, sa, sb = RAGGED[name]
    fn = eval(text)
    g = torch.Generator().manual_seed(0)
    a, b = torch.randn(*sa, generator=g), torch.randn(*sb, generator=g)
    c = dpl_compile(fn, a, b, pipeline=_on_tensor_cores())
    assert "wgmma" in c.cuda
    out = c(a.cuda(), b.cuda(), poison=True)
    ref = fn(a.cuda().double(), b.cuda().double())
    eager = fn(a.cuda(), b.cuda())
    err = float((out.double() - ref).norm() / ref.norm())
    eager_err = float((eager.double() - ref).norm() / ref.norm())
    assert err < 1e-5 and err <= 2 * eager_err, (err, eager_err)
