"""Attention through the flash kernel (fuse-attention -> tile-attention -> materialize-attention,
or materialize-attention-wgmma where the schedule puts it on warpgroup MMA, sm_90's default):
scaled_dot_product_attention captured from PyTorch, lowered by the default pipeline to one
kernel.func, run on the kernel executor and compared with the loop level (the reference: the
loop executor on fuse-attention's attn.softmax_reduce) and with PyTorch in float64, on random
inputs: causal and not, query and key lengths that are not multiples of the block (64 rows) or
key tile, cross attention (L != S), GQA, MQA with its key expanded over the heads, head dim 64 and 128, each precision. Programs the flash
kernel cannot take (f64) keep the three-kernel path, and `-v` says which was taken. The CUDA it
prints compiles with nvcc for sm_90a; the @gpu test runs it against eager.

    python3 -m pytest -q tests/test_attention.py
"""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import kernel as K
from dpl.frontend import capture
from dpl.interpreters import exec_kernel, exec_loop
from dpl.transforms.pipelines import IR_PIPELINES, kernel_schedule, run_pipeline, with_precision

NVCC = shutil.which("nvcc")


class Sdpa(torch.nn.Module):
    def __init__(self, causal: bool, gqa: bool = False):
        super().__init__()
        self.causal, self.gqa = causal, gqa

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal, enable_gqa=self.gqa)


def _inputs(b: int, h: int, hkv: int, lq: int, s: int, d: int, seed: int = 0):
    g = torch.Generator().manual_seed(seed)
    return [torch.randn(b, heads, n, d, generator=g) for heads, n in ((h, lq), (hkv, s), (hkv, s))]


def _rel(a: np.ndarray, ref: np.ndarray) -> float:
    return float(np.linalg.norm(a - ref) / np.linalg.norm(ref))


def _kernel_module(prog, precision: str | None = None):
    module = prog.module.clone()
    run_pipeline(module, with_precision(IR_PIPELINES["kernel"], precision))
    return module


CASES = [
    # b, h, hkv, L, S, d, causal, precision
    (1, 2, 2, 13, 13, 8, True, None),
    (1, 2, 2, 13, 13, 8, False, None),
    (2, 1, 1, 70, 70, 64, True, None),  # two query blocks, the second ragged
    (1, 1, 1, 45, 77, 64, False, None),  # cross attention, ragged key tiles
    (1, 2, 2, 37, 37, 128, True, None),  # head dim 128: key tiles of 32
    (1, 4, 2, 21, 21, 64, True, None),  # GQA: 4 query heads over 2 KV heads
    (1, 2, 2, 45, 45, 64, True, "ieee"),  # SIMT fp32
    (1, 1, 1, 19, 33, 128, False, "tf32"),
]


@pytest.mark.parametrize("b,h,hkv,lq,s,d,causal,precision", CASES)
def test_flash_kernel_matches_reference(b, h, hkv, lq, s, d, causal, precision):
    xs = _inputs(b, h, hkv, lq, s, d)
    prog = capture(Sdpa(causal, gqa=h != hkv), *xs)
    loop_module = prog.module.clone()
    run_pipeline(loop_module, IR_PIPELINES["loop"])
    assert any(op.name == "attn.softmax_reduce" for op in loop_module.walk())
    ins = [x.double().numpy() for x in xs]
    ref = Sdpa(causal, gqa=h != hkv)(*(x.double() for x in xs)).numpy()
    at_loop = exec_loop.run(loop_module, [x.copy() for x in ins])[0]
    assert _rel(at_loop, ref) < 1e-6

    module = _kernel_module(prog, precision)
    funcs = [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]
    assert len(funcs) == 1, "one kernel for the attention"
    out = exec_kernel.run(module, [x.copy() for x in ins])[0]
    assert not np.isnan(out).any()
    tol = 1e-3 if precision == "tf32" else 1e-6
    assert _rel(out, at_loop) < tol
    if precision == "tf32":
        assert _rel(out, at_loop) > 1e-5, "plain TF32 is visibly less accurate (it is really used)"


class ExpandedMqa(torch.nn.Module):
    """Multi-query attention as users write it: one key and value head expanded over the query
    heads (no head index in the key's loads: the heads are a batch loop the key is shared
    along)."""

    def forward(self, q, k, v):
        h = q.shape[1]
        return F.scaled_dot_product_attention(q, k.expand(-1, h, -1, -1), v.expand(-1, h, -1, -1), is_causal=True)


def test_expanded_mqa_is_one_flash_kernel(pass_log):
    xs = _inputs(2, 3, 1, 21, 21, 64)
    prog = capture(ExpandedMqa(), *xs)
    loop_module = prog.module.clone()
    run_pipeline(loop_module, IR_PIPELINES["loop"])
    assert any(op.name == "attn.softmax_reduce" for op in loop_module.walk())
    ins = [x.double().numpy() for x in xs]
    ref = ExpandedMqa()(*(x.double() for x in xs)).numpy()
    assert _rel(exec_loop.run(loop_module, [x.copy() for x in ins])[0], ref) < 1e-6
    module = _kernel_module(prog)
    assert len([op for op in module.walk() if isinstance(op, K.KernelFuncOp)]) == 1
    assert _rel(exec_kernel.run(module, [x.copy() for x in ins])[0], ref) < 1e-6
    assert "is flash attention: tile-attention" in pass_log.text


class EinsumBshd(torch.nn.Module):
    """Attention written with einsums on the (b, s, h, d) layout (axial attention's form): the
    scores come out of lower-to-loops over a merged b*h axis, so the softmax's out is read at
    [(b*h) floordiv h, (b*h) mod h, l, s], indices that are not plain loop indices."""

    def forward(self, q, k, v):
        a = torch.einsum("bqhd,bkhd->bhqk", q, k).softmax(-1)
        return torch.einsum("bhqk,bkhd->bqhd", a, v)


def test_einsum_bshd_attention_is_one_flash_kernel(pass_log):
    g = torch.Generator().manual_seed(3)
    xs = [torch.randn(2, 13, 3, 8, generator=g) for _ in range(3)]
    prog = capture(EinsumBshd(), *xs)
    loop_module = prog.module.clone()
    run_pipeline(loop_module, IR_PIPELINES["loop"])  # verifies after each pass
    assert any(op.name == "attn.softmax_reduce" for op in loop_module.walk())
    ins = [x.double().numpy() for x in xs]
    ref = EinsumBshd()(*(x.double() for x in xs)).numpy()
    assert _rel(exec_loop.run(loop_module, [x.copy() for x in ins])[0], ref) < 1e-6
    module = _kernel_module(prog)
    assert len([op for op in module.walk() if isinstance(op, K.KernelFuncOp)]) == 1
    assert _rel(exec_kernel.run(module, [x.copy() for x in ins])[0], ref) < 1e-6
    assert "is flash attention: tile-attention" in pass_log.text


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")
def test_expanded_mqa_parity_on_gpu():
    from dpl.driver.compile import compile as dpl_compile

    xs = _inputs(4, 16, 1, 512, 512, 64)
    c = dpl_compile(ExpandedMqa(), *xs)
    assert c.num_kernels == 1
    _assert_gpu_parity(c, ExpandedMqa(), xs)


def test_schedule_logs_the_flash_kernel_and_the_fallback(pass_log):
    xs = _inputs(1, 2, 2, 13, 13, 8)
    _kernel_module(capture(Sdpa(True), *xs))
    assert "is flash attention: tile-attention" in pass_log.text
    pass_log.lines.clear()
    module = _kernel_module(capture(Sdpa(True), *xs, dtype=torch.float64))
    assert "not f32 (the flash kernel computes in f32)" in pass_log.text
    assert "flash attention" not in pass_log.text
    assert len([op for op in module.walk() if isinstance(op, K.KernelFuncOp)]) > 1


#: Split over the keys (split-KV): b, h, hkv, L, S, d, causal, tile-attention options.
SPLIT_CASES = [
    (1, 2, 2, 37, 37, 24, False, "rows=32 tile=8 splits=3"),
    (1, 2, 2, 45, 45, 16, True, "rows=16 tile=8 splits=4"),  # causal: splits past a block's rows
    (1, 4, 2, 21, 45, 16, True, "rows=16 tile=8 splits=16"),  # GQA, cross: as many splits as tiles
    (2, 2, 1, 1, 70, 64, False, "rows=16 tile=16 splits=4"),  # decode-like: one query row
    (1, 2, 2, 37, 77, 128, True, "rows=64 tile=32 splits=2"),
]


def _split_module(prog, opts: str):
    module = prog.module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"].replace(",schedule,", f",tile-attention{{{opts}}},schedule,"))
    return module


def _kernels_and_loop(b, h, hkv, lq, s, d, causal, opts: str, seed: int, pipeline: str | None = None):
    """SDPA at these sizes through the kernel pipeline with `tile-attention{opts}` (or through
    `pipeline`): (its kernel IR, its output on the CPU executor, the loop level's output), on the
    same f64 inputs."""
    xs = _inputs(b, h, hkv, lq, s, d, seed=seed)
    prog = capture(Sdpa(causal, gqa=h != hkv), *xs)
    loop_module = prog.module.clone()
    run_pipeline(loop_module, IR_PIPELINES["loop"])
    ins = [x.double().numpy() for x in xs]
    at_loop = exec_loop.run(loop_module, [x.copy() for x in ins])[0]
    if pipeline is None:
        module = _split_module(prog, opts)
    else:
        module = prog.module.clone()
        run_pipeline(module, pipeline)
    return module, exec_kernel.run(module, [x.copy() for x in ins])[0], at_loop


@pytest.mark.parametrize("b,h,hkv,lq,s,d,causal,opts", SPLIT_CASES)
def test_split_keys_match_reference(b, h, hkv, lq, s, d, causal, opts):
    """The split flash kernel and its combine (two kernels) against the loop level."""
    module, out, at_loop = _kernels_and_loop(b, h, hkv, lq, s, d, causal, opts, seed=3)
    assert len([op for op in module.walk() if isinstance(op, K.KernelFuncOp)]) == 2
    assert not np.isnan(out).any()
    assert _rel(out, at_loop) < 1e-6


#: 128-bit fragment loads (tile-attention `wide`: 1 the scores', 2 P @ V's too) and the query
#: tile split once (`qsplit`) against the loop level: odd lengths, causal and not, GQA, a split,
#: head dim 128 (pre-split tiles) and 64, plain TF32.
WIDE_CASES = [
    (1, 2, 2, 37, 37, 128, True, "rows=64 tile=32 wide=1"),
    (1, 2, 2, 37, 37, 128, True, "rows=64 tile=16 wide=1"),  # the schedule's causal d 128 pick
    (1, 2, 2, 37, 37, 128, True, "rows=64 tile=32 wide=2"),
    (1, 1, 1, 45, 77, 128, False, "rows=32 tile=16 chain=8 wide=2"),  # cross, ragged key tiles
    (1, 4, 2, 21, 21, 64, True, "rows=16 tile=16 wide=2"),  # GQA, head dim 64 (split per MMA)
    (1, 2, 2, 37, 77, 128, True, "rows=64 tile=32 splits=2 wide=2"),  # split-KV + combine
    (1, 2, 2, 29, 29, 96, True, "rows=32 tile=16 wide=2"),  # depth 96: chains of 4 k-steps
    (1, 2, 2, 37, 37, 128, True, "rows=64 tile=32 wide=0 qsplit=1"),
    (1, 4, 2, 21, 21, 64, True, "rows=16 tile=16 wide=2 qsplit=1"),
    (1, 2, 2, 37, 77, 128, True, "rows=64 tile=32 splits=2 wide=2 qsplit=1"),
    (1, 1, 1, 19, 33, 128, False, "rows=32 tile=16 precision=tf32 qsplit=1"),  # no lo part
]


#: The wgmma kernel (materialize-attention-wgmma) with options the schedule does not pick: one
#: chain for the scores, a 128-key tile, plain TF32; cross lengths, ragged tiles, GQA. The default
#: CASES above take it too (sm_90), and test_mma_sync_cases_on_sm80 keeps mma.sync's on them.
WGMMA_CASES = [
    (1, 2, 2, 70, 70, 64, True, "tile=64 chain=0 wgmma=1"),
    (1, 1, 1, 45, 150, 32, False, "tile=128 chain=2 wgmma=1"),
    (1, 4, 2, 130, 130, 64, True, "tile=64 chain=4 wgmma=1"),  # interior tiles skip the mask
    (1, 1, 1, 19, 33, 128, False, "tile=64 chain=8 precision=tf32 wgmma=1"),
]


@pytest.mark.parametrize("b,h,hkv,lq,s,d,causal,opts", WGMMA_CASES)
def test_wgmma_kernel_matches_reference(b, h, hkv, lq, s, d, causal, opts):
    module, out, at_loop = _kernels_and_loop(b, h, hkv, lq, s, d, causal, opts, seed=7)
    assert any(op.name == "mma.wgmma_rs" for op in module.walk())
    assert not np.isnan(out).any()
    err = _rel(out, at_loop)
    assert err < (1e-3 if "tf32" in opts else 1e-6)
    if "tf32" in opts:
        assert err > 1e-5, "plain TF32 is visibly less accurate (it is really used)"


@pytest.mark.parametrize("b,h,hkv,lq,s,d,causal,precision", [c for c in CASES if c[7] != "ieee"][:4])
def test_mma_sync_cases_on_sm80(b, h, hkv, lq, s, d, causal, precision):
    """The default CASES on an sm_80 target: the mma.sync flash kernel, against the loop level."""
    pipeline = "set-target{arch=sm_80}," + with_precision(IR_PIPELINES["kernel"], precision)
    module, out, at_loop = _kernels_and_loop(b, h, hkv, lq, s, d, causal, "", seed=0, pipeline=pipeline)
    assert not any(op.name.startswith("mma.wgmma") for op in module.walk())
    assert _rel(out, at_loop) < 1e-6


@pytest.mark.parametrize("b,h,hkv,lq,s,d,causal,opts", WIDE_CASES)
def test_wide_fragments_and_query_split_match_reference(b, h, hkv, lq, s, d, causal, opts):
    _, out, at_loop = _kernels_and_loop(b, h, hkv, lq, s, d, causal, opts, seed=5)
    assert not np.isnan(out).any()
    assert _rel(out, at_loop) < (1e-3 if "tf32" in opts else 1e-6)


@pytest.mark.parametrize("d,causal,tile", [(128, True, 16), (128, False, 32), (64, True, 64), (64, False, 64)])
def test_schedule_key_tile_by_depth_and_mask(d, causal, tile, pass_log):
    """The mma.sync kernel's key tile (sm_80, no wgmma): 64 up to head dim 64; past it 32, and 16
    when causal (measured faster on the H100 at seq 128-2048, Schedule.flash_spec)."""
    module = capture(Sdpa(causal), *_inputs(1, 2, 2, 40, 40, d)).module.clone()
    run_pipeline(module, "set-target{arch=sm_80}," + IR_PIPELINES["tile"])
    assert f"tile-attention{{tile={tile} " in pass_log.text
    assert "wgmma=0" in pass_log.text


@pytest.mark.parametrize("d,chain", [(128, 8), (64, 4), (80, 6), (8, 2)])
def test_schedule_takes_wgmma_on_sm90(d, chain, pass_log):
    """On sm_90 (the default target) the flash kernel is one warpgroup on wgmma: key tiles of 64,
    the scores in two chains of half the (32-rounded) depth, no wide fragments."""
    module = capture(Sdpa(True), *_inputs(1, 2, 2, 40, 40, d)).module.clone()
    run_pipeline(module, IR_PIPELINES["tile"])
    assert f"tile-attention{{tile=64 precision=3xtf32 splits=1 wide=0 chain={chain} wgmma=1}}" in pass_log.text
    flash = next(op for op in module.walk() if op.name == "attn.flash")
    assert flash.is_wgmma and flash.size("rows") == 64


def test_schedule_keeps_mma_sync_where_wgmma_declines(pass_log):
    """A head dim past 128 (its tiles would not fit shared memory), a target whose blocks may use
    less shared memory than the wgmma kernel's 225 KiB at d 128, and a split over the keys
    (decode-like: the query blocks fill under a quarter of the SMs) stay on mma.sync."""
    module = capture(Sdpa(True), *_inputs(1, 2, 2, 40, 40, 160)).module.clone()
    run_pipeline(module, IR_PIPELINES["tile"])
    assert "wgmma=0" in pass_log.text
    pass_log.lines.clear()
    module = capture(Sdpa(True), *_inputs(1, 2, 2, 40, 40, 128)).module.clone()
    run_pipeline(module, "set-target{smem-bytes=100000}," + IR_PIPELINES["kernel"])
    assert "wgmma=0" in pass_log.text and "wgmma" not in str(module)
    pass_log.lines.clear()
    module = _kernel_module(capture(Sdpa(False), *_inputs(1, 8, 8, 1, 2048, 64)))
    assert "splits=8" in pass_log.text and "wgmma=0" in pass_log.text
    assert "wgmma" not in str(module)


def test_wide_is_recorded_where_the_sizes_allow(pass_log):
    """tile-attention records `wide` on the attn.flash (head dim 128: 1 by default) and leaves it
    off where the depth is no multiple of 32 or the chain splits a group of 4 k-steps."""
    def flash(d: int, opts: str) -> str:
        module = capture(Sdpa(True), *_inputs(1, 2, 2, 13, 13, d)).module.clone()
        run_pipeline(module, IR_PIPELINES["loop"] + f",split-nests,tile-attention{{{opts}}}")
        return next(str(op).splitlines()[0] for op in module.walk() if op.name == "attn.flash")

    assert " wide 1 " in flash(128, "rows=16 tile=8")
    assert " wide 2 " in flash(64, "rows=16 tile=8 wide=2")
    assert " wide" not in flash(128, "rows=16 tile=8 wide=0")
    assert " wide" not in flash(40, "rows=16 tile=8 wide=2")  # depth 40
    assert " wide" not in flash(128, "rows=16 tile=8 chain=2 wide=2")  # chains of 2 k-steps
    assert " wide" not in flash(128, "rows=16 tile=8 precision=ieee wide=2")
    prog = capture(Sdpa(True), *_inputs(1, 2, 2, 13, 13, 128))
    # 16-byte shared loads in the key-tile loop: the tiles' split (2) and, per 4 k-steps, the scores'
    # (2 rows of Q, 2 per key n-tile), and per k-step P @ V's (2 keys x hi, lo)
    loads = [print_cuda(_split_module(prog, f"rows=16 tile=8 wide={w}")).count("*reinterpret_cast<const float4*>(&")
             for w in range(3)]  # fmt: skip
    assert loads[0] < loads[1] < loads[2], loads


def test_schedule_splits_the_keys_where_the_query_blocks_do_not_fill_the_gpu(pass_log):
    """Decode-like (one query row, 8 heads, 2048 keys): the default schedule splits the keys
    (two kernels); 32 heads of 512 queries fill the GPU: one kernel."""
    xs = _inputs(1, 8, 8, 1, 2048, 64)
    module = _kernel_module(capture(Sdpa(False), *xs))
    assert "splits=8" in pass_log.text
    assert len([op for op in module.walk() if isinstance(op, K.KernelFuncOp)]) == 2
    module = _kernel_module(capture(Sdpa(True), *_inputs(1, 32, 32, 512, 512, 64)))
    assert len([op for op in module.walk() if isinstance(op, K.KernelFuncOp)]) == 1


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
@pytest.mark.parametrize("arch", ["sm_90a", "sm_80"])
def test_split_cuda_compiles(arch, tmp_path: Path):
    prog = capture(Sdpa(True, gqa=True), *_inputs(1, 8, 2, 100, 300, 128))
    source = print_cuda(_split_module(prog, "tile=32 splits=4"))
    assert source.count("__global__") == 2
    cu = tmp_path / "split.cu"
    cu.write_text(source)
    result = subprocess.run([NVCC, f"-arch={arch}", "-c", "-o", str(tmp_path / "split.o"), str(cu)],
                            capture_output=True, text=True, timeout=600)  # fmt: skip
    assert result.returncode == 0, result.stderr


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
@pytest.mark.parametrize("d,causal", [(64, False), (128, True)])
def test_flash_cuda_compiles_for_sm90a(d, causal, tmp_path: Path):
    prog = capture(Sdpa(causal), *_inputs(1, 4, 4, 300, 300, d))
    source = print_cuda(_kernel_module(prog))
    cu = tmp_path / "attn.cu"
    cu.write_text(source)
    result = subprocess.run(
        [NVCC, "-gencode=arch=compute_90a,code=sm_90a", "-c", "-o", str(tmp_path / "attn.o"), str(cu)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr


def _assert_gpu_parity(c, mod, xs) -> None:
    """dpl's `c` on the GPU (output poisoned first) against float64: relative error at most 2x
    eager's, or under 2e-6."""
    gs = [x.cuda() for x in xs]
    out = c(*gs, poison=True).double()
    ref = mod(*(x.double() for x in gs))
    eager = mod(*gs).double()
    err = float((out - ref).norm() / ref.norm())
    eager_err = float((eager - ref).norm() / ref.norm())
    assert err <= max(2 * eager_err, 2e-6), (err, eager_err)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("b,h,hkv,lq,d,causal,kernels", [
    (2, 8, 8, 200, 64, True, 1), (1, 8, 8, 333, 128, False, 1),
    (1, 8, 2, 256, 128, True, 2),  # 32 query blocks fill under a quarter of 132 SMs: split-KV + combine
])  # fmt: skip
def test_flash_parity_on_gpu(b, h, hkv, lq, d, causal, kernels):
    """One flash launch (plus split-KV's combine where the query blocks leave SMs idle); relative
    error against float64 at most 2x eager's (or under 2e-6)."""
    from dpl.driver.compile import compile as dpl_compile

    xs = _inputs(b, h, hkv, lq, lq, d)
    mod = Sdpa(causal, gqa=h != hkv)
    c = dpl_compile(mod, *xs)
    assert c.num_kernels == kernels
    _assert_gpu_parity(c, mod, xs)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("opts", ["rows=64 tile=16 wide=2", "tile=32 chain=8 wide=2", "rows=128 tile=32 wide=1",
                                  "rows=32 tile=16 wide=2", "rows=128 tile=32 qsplit=1",
                                  "rows=64 tile=16 wide=2 qsplit=1"])  # fmt: skip
def test_wide_fragments_parity_on_gpu(opts):
    """128-bit fragment loads and the query tile split once (d 128, causal, 333 rows: ragged blocks and key tiles; GQA 8 over 2)
    on the GPU: one launch, relative error against float64 at most 2x eager's (or under 2e-6)."""
    from dpl.driver.compile import compile as dpl_compile

    xs = _inputs(1, 8, 2, 333, 333, 128)
    mod = Sdpa(True, gqa=True)
    spec = kernel_schedule().replace("split-nests,schedule,", f"split-nests,tile-attention{{{opts}}},schedule,", 1)
    c = dpl_compile(mod, *xs, pipeline=spec, tune_cache=False)
    assert c.num_kernels == 1
    _assert_gpu_parity(c, mod, xs)


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("b,h,hkv,lq,s,d", [(1, 32, 8, 1, 4096, 128), (1, 8, 8, 16, 2048, 64)])
def test_split_keys_parity_on_gpu(b, h, hkv, lq, s, d):
    """Decode-like shapes take the split kernel and its combine (two launches); relative error
    against float64 at most 2x eager's (or under 2e-6)."""
    from dpl.driver.compile import compile as dpl_compile

    xs = _inputs(b, h, hkv, lq, s, d)
    mod = Sdpa(False, gqa=h != hkv)
    c = dpl_compile(mod, *xs, tune_cache=False)
    assert c.num_kernels == 2
    _assert_gpu_parity(c, mod, xs)
