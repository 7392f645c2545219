"""The tensor cores round every sum into their fp32 accumulators toward zero (the H100 shows it:
bench/results/h100-2026-11-24-tc-probe.md), so one 3xTF32 accumulator chain over a long K loses
accuracy linearly in K; chains of a few K steps added into fp32 accumulators by ordinary adds
("promotion") keep it at fp32's level. The CPU executors model the truncation, so this is checked
here without a GPU, against the bar of DESIGN.md: an error against float64 at most twice that of
PyTorch fp32 on the same inputs.

- `tf32.contract` (the tile executor's mma.dot): one chain over K = 2048 fails the bar, chains of
  4 steps pass it;
- the kernel executor on a hand-written warpgroup kernel over K = 2048 in both forms: all MMAs
  into the accumulators (the first materialize-mma did this) fails, a fresh chain per K step of 32
  (`mma.wgmma ... overwrite`) added into the accumulators passes;
- materialize-mma's kernels of a long-K linear (wgmma and mma.sync) pass.
"""

from __future__ import annotations

import shutil
import subprocess

import numpy as np
import pytest
import torch

from dpl.dialects import kernel as K
from dpl.dialects import make_context
from dpl.dialects.parsing import LocatingParser
from dpl.interpreters import exec_kernel
from dpl.interpreters.tf32 import contract, mma_tf32, round_toward_zero

KLEN = 2048


def _rel(out, ref) -> float:
    return float(np.linalg.norm(np.asarray(out, np.float64) - ref) / np.linalg.norm(ref))


def _inputs(m: int, n: int, k: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, k)).astype(np.float32)
    b = (rng.standard_normal((n, k)) / np.sqrt(k)).astype(np.float32)
    ref = a.astype(np.float64) @ b.astype(np.float64).T
    eager = _rel((torch.from_numpy(a) @ torch.from_numpy(b).T).numpy(), ref)
    return a, b, ref, eager


def test_the_mma_rounds_toward_zero():
    x = np.array([1.0 + 2.0**-24, -(1.0 + 2.0**-24), 1.0 + 3 * 2.0**-25, 2.0**-30, np.inf, np.nan])
    got = round_toward_zero(x)
    assert got[0] == np.float32(1.0) and got[1] == np.float32(-1.0)  # not to nearest even
    assert got[2] == np.float32(1.0)  # 1.5 ulp above 1: nearest would round up
    assert got[3] == np.float32(2.0**-30) and got[4] == np.inf and np.isnan(got[5])
    a = np.full((1, 8), 1.0, np.float32)
    b = np.full((1, 8), 2.0**-23 / 8 * 1.5, np.float32)  # products sum to 1.5 ulp(1)
    assert mma_tf32(a, b, np.ones((1, 1), np.float32))[0, 0] == np.float32(1.0 + 2.0**-23)
    assert mma_tf32(-a, b, -np.ones((1, 1), np.float32))[0, 0] == np.float32(-(1.0 + 2.0**-23))


def test_contract_chain_length():
    a, b, ref, eager = _inputs(64, 64, KLEN)
    one_chain = _rel(contract(a[:, None, :], b[None, :, :], "3xtf32"), ref)
    promoted = _rel(contract(a[:, None, :], b[None, :, :], "3xtf32", promote=4), ref)
    assert one_chain > 10 * eager  # about 2e-5 against 2.5e-7: the H100's first kernels
    assert promoted <= 2 * eager, (promoted, eager)


# ----------------------------------------------------------------------------- kernel level

_SW = "#mma.swizzle<128>, #kernel.smem"


def _warpgroup_kernel(klen: int, promote: bool) -> str:
    """One warpgroup: C (64 x 8) = A (64 x klen) B (8 x klen)^T in 3xTF32 on wgmma m64n8k8, K
    staged 32 at a time (split, swizzled); `promote`: each K step's 12 MMAs are a chain on
    %chain (the small terms first, the first overwriting) added into %acc; else all MMAs of all
    K steps go into %acc (lo*hi, hi*lo, hi*hi per step of 8, as the first lowering did)."""
    ta, tb = f"memref<64x32xf32, {_SW}>", f"memref<8x32xf32, {_SW}>"
    types = f"memref<4xf32>, {ta}, {tb}"
    if promote:
        mmas = f"""
    mma.wgmma m64n8k8 overwrite %chain, %a_lo[0, 0], %b_hi[0, 0] : {types}
    mma.wgmma m64n8k8 %chain, %a_hi[0, 0], %b_lo[0, 0] : {types}
    kernel.for %kk = 1 to 4 step 1 unroll {{
      mma.wgmma m64n8k8 %chain, %a_lo[0, %kk * 8], %b_hi[0, %kk * 8] : {types}
      mma.wgmma m64n8k8 %chain, %a_hi[0, %kk * 8], %b_lo[0, %kk * 8] : {types}
    }}
    kernel.for %kk = 0 to 4 step 1 unroll {{
      mma.wgmma m64n8k8 %chain, %a_hi[0, %kk * 8], %b_hi[0, %kk * 8] : {types}
    }}
    mma.wgmma_commit
    mma.wgmma_wait 0
    kernel.for %j = 0 to 4 step 1 unroll {{
      %s = kernel.load %acc[%j] : memref<4xf32>
      %p = kernel.load %chain[%j] : memref<4xf32>
      %sum = arith.addf %s, %p : f32
      kernel.store %sum, %acc[%j] : memref<4xf32>
    }}"""
    else:
        mmas = f"""
    kernel.for %kk = 0 to 4 step 1 unroll {{
      mma.wgmma m64n8k8 %acc, %a_lo[0, %kk * 8], %b_hi[0, %kk * 8] : {types}
      mma.wgmma m64n8k8 %acc, %a_hi[0, %kk * 8], %b_lo[0, %kk * 8] : {types}
      mma.wgmma m64n8k8 %acc, %a_hi[0, %kk * 8], %b_hi[0, %kk * 8] : {types}
    }}
    mma.wgmma_commit
    mma.wgmma_wait 0"""
    stage = []
    for side, rows, per in (("a", 64, 16), ("b", 8, 2)):
        t = ta if side == "a" else tb
        stage.append(f"""
    kernel.for %i = 0 to {per} step 1 {{
      %v = kernel.load %{side}[(%t + %i * 128) floordiv 32, %ko * 32 + (%t + %i * 128) mod 32] : memref<{rows}x{klen}xf32>
      %h = mma.tf32 %v : f32
      %r = arith.subf %v, %h : f32
      %l = mma.tf32 %r : f32
      kernel.store %h, %{side}_hi[(%t + %i * 128) floordiv 32, (%t + %i * 128) mod 32] : {t}
      kernel.store %l, %{side}_lo[(%t + %i * 128) floordiv 32, (%t + %i * 128) mod 32] : {t}
    }}""")
    return f"""
kernel.func @k(%a: memref<64x{klen}xf32>, %b: memref<8x{klen}xf32>, %c: memref<64x8xf32>) grid [1, 1, 1] block [128, 1, 1] smem 19456 {{
  %zero = arith.constant 0.0 : f32
  %t = kernel.thread_id x
  %a_hi = kernel.smem dynamic offset 0 : {ta}
  %a_lo = kernel.smem dynamic offset 8192 : {ta}
  %b_hi = kernel.smem dynamic offset 16384 : {tb}
  %b_lo = kernel.smem dynamic offset 17408 : {tb}
  %acc = kernel.alloca : memref<4xf32>
  %chain = kernel.alloca : memref<4xf32>
  kernel.for %j = 0 to 4 step 1 unroll {{
    kernel.store %zero, %acc[%j] : memref<4xf32>
  }}
  kernel.for %ko = 0 to {klen // 32} step 1 {{{stage[0]}{stage[1]}
    mma.fence_proxy_async
    kernel.barrier
    mma.wgmma_fence{mmas}
    kernel.barrier
  }}
  kernel.for %h = 0 to 2 step 1 unroll {{
    kernel.for %e = 0 to 2 step 1 unroll {{
      %d = kernel.load %acc[%h * 2 + %e] : memref<4xf32>
      kernel.store %d, %c[%t floordiv 32 * 16 + %h * 8 + %t mod 32 floordiv 4, %t mod 4 * 2 + %e] : memref<64x8xf32>
    }}
  }}
}}
"""


def _run_warpgroup(klen: int, promote: bool, a, b) -> np.ndarray:
    module = LocatingParser(make_context(), _warpgroup_kernel(klen, promote), "<test>").parse_module()
    module.verify()
    kf = next(op for op in module.walk() if isinstance(op, K.KernelFuncOp))
    c = np.full((64, 8), np.nan, np.float32)
    exec_kernel.run_kernel(kf, [a, b, c])
    return c


def test_a_warpgroup_needs_promotion_on_a_long_k():
    a, b, ref, eager = _inputs(64, 8, KLEN, seed=1)
    one_chain = _rel(_run_warpgroup(KLEN, False, a, b), ref)
    promoted = _rel(_run_warpgroup(KLEN, True, a, b), ref)
    assert one_chain > 10 * eager, (one_chain, eager)
    assert promoted <= 2 * eager, (promoted, eager)
    # the promoted kernel computes what the tile level's mma.dot (promote 4) means, to the bit
    want = np.zeros((64, 8), np.float32)
    for k0 in range(0, KLEN, 32):
        want += contract(a[:, None, k0 : k0 + 32], b[None, :, k0 : k0 + 32], "3xtf32")
    assert np.array_equal(_run_warpgroup(KLEN, True, a, b), want)


# ----------------------------------------------------------------------------- materialize-mma


@pytest.mark.parametrize("layout", ["wgmma", "mma_sync"])
def test_materialized_linear_on_a_long_k(layout):
    """x @ w.T with K = 2048 through tensorize-matmul and materialize-mma, run on the kernel
    executor (its truncating MMAs): within twice PyTorch fp32's error."""
    from xdsl.passes import PassPipeline

    from dpl.frontend import capture
    from dpl.transforms import all_passes

    g = torch.Generator().manual_seed(3)
    lin = torch.nn.Linear(KLEN, 64, bias=False)
    with torch.no_grad():
        lin.weight.copy_(torch.randn(64, KLEN, generator=g) / KLEN**0.5)
    x, w = torch.randn(64, KLEN, generator=g), lin.weight.detach()
    prog = capture(lin, x)
    module = prog.module.clone()
    bn = 64 if layout == "mma_sync" else 32
    spec = ("decompose-torch,fold-index-maps,lower-to-loops,fuse-loops,split-nests,tileify,"
            f"chunk-matmul-k{{k-tile=32}},tensorize-matmul{{layout={layout} bm=64 bn={bn}}},"
            "materialize-mma,materialize")  # fmt: skip
    PassPipeline.parse_spec(all_passes(), spec).apply(make_context(), module)
    module.verify()
    assert any(op.name in ("mma.wgmma", "mma.sync") for op in module.walk())
    ref = x.double() @ w.double().T
    arrays = [a.detach().numpy() for a in [x, *prog.args[prog.num_inputs :]]]
    out = torch.from_numpy(exec_kernel.run(module, arrays)[0])
    err = float((out.double() - ref).norm() / ref.norm())
    eager = float(((x @ w.T).double() - ref).norm() / ref.norm())
    assert err <= 2 * eager, (err, eager)


@pytest.mark.skipif(shutil.which("nvcc") is None, reason="nvcc not found")
@pytest.mark.parametrize("target, op", [("sm_90", "dpl_wgmma_m64n128k8_zero"), ("sm_80", "mma.sync.aligned")])
def test_promoted_kernels_compile_without_spills(target, op, tmp_path):
    """The schedule's promoted tensor-core kernel of a linear (wgmma 128 x 128 on sm_90a,
    mma.sync on sm_80) compiles with nvcc; on sm_90a ptxas spills nothing: the chain fragment
    doubles the accumulator registers, which schedule_mma.registers accounts for (mma.sync 128 x
    128 still spills about 90 bytes on sm_80: its fragments are not in that estimate yet)."""
    from dpl.backend.cuda_printer import print_cuda, print_manifest
    from dpl.frontend import capture_expression
    from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

    # 2048 x 2048 x 256: 256 blocks of 128 x 128 fill the GPU (smaller outputs take 64 x 64 tiles,
    # schedule_mma.LONE_STEP); held to the tensor cores, as the model may prefer a SIMT split
    prog = capture_expression("torch.nn.functional.linear(torch.randn(2048, 256), torch.randn(2048, 256))")
    module = prog.module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"].replace("schedule", f"schedule{{target={target} tensor-cores=true}}"))
    source = print_cuda(module)
    assert op in source
    cu = tmp_path / "k.cu"
    cu.write_text(source)
    arch = print_manifest(module).get("arch", target)
    flag = f"-gencode=arch=compute_{arch[3:]},code={arch}" if arch.endswith("a") else f"-arch={arch}"
    r = subprocess.run(["nvcc", flag, "-Xptxas", "-v", "-c", "-o", str(tmp_path / "k.o"), str(cu)],
                       capture_output=True, text=True, timeout=300)  # fmt: skip
    assert r.returncode == 0, r.stderr
    spills = [line for line in r.stderr.splitlines() if "spill" in line]
    assert spills and (target == "sm_80" or all(" 0 bytes spill stores" in line for line in spills)), r.stderr
