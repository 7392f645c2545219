"""tensorize-matmul keeps meaning on whole programs: small decoder-like blocks captured from
PyTorch (a norm's scale in the projection prologue, silu(gate) * up and a residual in the
epilogues, x @ w with w stored [K, N], split-K), lowered to tile IR with the tensor-core tiles,
run on the tile executor and compared with PyTorch in float64: 3xTF32 within 1e-5, plain TF32
clearly less accurate (it is opt-in)."""

from __future__ import annotations

import pytest
import torch
from torch import nn
from xdsl.passes import PassPipeline

from dpl.dialects import make_context, mma
from dpl.frontend import capture
from dpl.frontend.check import relative_error
from dpl.interpreters import exec_tile
from dpl.transforms import all_passes

TO_LOOPS = "decompose-torch,fold-index-maps,lower-to-loops,fuse-loops,split-nests"


class Mlp(nn.Module):
    """RMSNorm -> gate/up -> silu(gate) * up -> down, plus the residual."""

    def __init__(self, d: int = 64, f: int = 128):
        super().__init__()
        self.norm = nn.RMSNorm(d, eps=1e-6)
        self.gate = nn.Linear(d, f, bias=False)
        self.up = nn.Linear(d, f, bias=False)
        self.down = nn.Linear(f, d, bias=False)

    def forward(self, x):
        h = self.norm(x)
        return x + self.down(torch.nn.functional.silu(self.gate(h)) * self.up(h))


class MatmulKN(nn.Module):
    """x @ w with w stored [K, N], plus a bias."""

    def __init__(self, k: int = 64, n: int = 64):
        super().__init__()
        self.w = nn.Parameter(torch.randn(k, n) / k**0.5)
        self.b = nn.Parameter(torch.randn(n))

    def forward(self, x):
        return x @ self.w + self.b


def _tile_module(prog, tiles: str):
    module = prog.module.clone()
    PassPipeline.parse_spec(all_passes(), TO_LOOPS + "," + tiles).apply(make_context(), module)
    module.verify()
    return module


def _run(module):
    return lambda _m, arrays: exec_tile.run(module, arrays)


def _count_dots(module) -> int:
    return sum(isinstance(op, mma.DotOp) for op in module.walk())


TC = "tileify,chunk-matmul-k{k-tile=32},tensorize-matmul{bm=64 bn=64}"


def test_mlp_block_on_tensor_cores():
    prog = capture(Mlp(), torch.randn(1, 64, 64))
    module = _tile_module(prog, TC)
    assert _count_dots(module) == 3  # gate, up (silu(gate) * up epilogue), down (+ residual)
    assert relative_error(prog, _run(module)) < 1e-5


def test_tf32_is_opt_in_and_less_accurate():
    prog = capture(Mlp(), torch.randn(1, 64, 64))
    exact = relative_error(prog, _run(_tile_module(prog, TC)))
    tf32 = relative_error(prog, _run(_tile_module(prog, TC.replace("bn=64}", "bn=64 precision=tf32}"))))
    assert exact < 1e-5 and 10 * exact < tf32 < 1e-2


def test_matmul_with_weight_stored_k_by_n():
    prog = capture(MatmulKN(), torch.randn(128, 64))
    module = _tile_module(prog, TC)
    assert _count_dots(module) == 1
    assert relative_error(prog, _run(module)) < 1e-5


def test_split_k_composes():
    prog = capture(MatmulKN(k=256), torch.randn(64, 256))
    module = _tile_module(prog, "tileify,chunk-matmul-k{k-tile=32},split-matmul-k{splits=4},tensorize-matmul{bm=64 bn=64}")
    assert _count_dots(module) == 1
    assert relative_error(prog, _run(module)) < 1e-5


@pytest.mark.parametrize("option, message", [
    ("layout=bogus", "tensorize-matmul: layout must be wgmma or mma_sync, got 'bogus'"),
    ("precision=bf16", "tensorize-matmul: precision must be 3xtf32 or tf32, got 'bf16'"),
    ("bm=96", "tensorize-matmul: wgmma needs bm a multiple of 64 up to 256"),
])
def test_bad_options_are_one_line(option, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        PassPipeline.parse_spec(all_passes(), f"tensorize-matmul{{{option}}}")


# ----------------------------------------------------------------------------- to kernel IR

from dpl.backend.cuda_printer import print_cuda, print_manifest  # noqa: E402
from dpl.interpreters import exec_kernel  # noqa: E402

TO_KERNEL = "materialize-mma,materialize"


def _kernel_module(prog, tiles: str):
    module = _tile_module(prog, tiles)
    PassPipeline.parse_spec(all_passes(), TO_KERNEL).apply(make_context(), module)
    module.verify()
    return module


def test_mlp_block_on_wgmma_kernels():
    """The whole block as kernel IR (wgmma kernels for the three projections, SIMT for the
    norm) on the kernel executor, with its race and wgmma-asynchrony checks."""
    prog = capture(Mlp(), torch.randn(1, 64, 64))
    module = _kernel_module(prog, TC)
    wgmmas = [op for op in module.walk() if isinstance(op, mma.WgmmaOp)]
    assert len(wgmmas) == 3 * 4 * 3  # per K step of 8: lo*hi, hi*lo, hi*hi
    assert sum(op.overwrite is not None for op in wgmmas) == 3  # one chain per K step of 32
    assert relative_error(prog, lambda _m, a: exec_kernel.run(module, a)) < 1e-5
    assert print_manifest(module)["arch"] == "sm_90a"


def test_split_k_and_transposed_weight_kernels():
    prog = capture(MatmulKN(k=256), torch.randn(64, 256))
    tiles = "tileify,chunk-matmul-k{k-tile=32},split-matmul-k{splits=4},tensorize-matmul{bm=64 bn=64}"
    module = _kernel_module(prog, tiles)
    names = [op.sym_name.data for op in module.walk() if op.name == "kernel.func"]
    assert any(n.endswith("_init") for n in names)  # split-K: the output starts at zero
    assert relative_error(prog, lambda _m, a: exec_kernel.run(module, a)) < 1e-5


NVCC = __import__("shutil").which("nvcc") or "/usr/local/bin/nvcc"


@pytest.mark.skipif(not __import__("os").path.exists(NVCC), reason="nvcc not found")
def test_wgmma_kernels_compile_for_sm90a(tmp_path):
    import subprocess

    prog = capture(Mlp(), torch.randn(1, 128, 64))
    module = _kernel_module(prog, TC.replace("bm=64 bn=64", "bm=128 bn=64"))
    cu = tmp_path / "k.cu"
    cu.write_text(print_cuda(module))
    r = subprocess.run([NVCC, "-gencode=arch=compute_90a,code=sm_90a", "-c", "-Xptxas", "-v",
                        "-o", str(tmp_path / "k.o"), str(cu)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    spills = [line for line in r.stderr.splitlines() if "spill stores" in line]
    assert spills and all(" 0 bytes spill stores" in line for line in spills), r.stderr


class Qkv(nn.Module):
    """Three projections of one normed input: fuse-launches puts them in one launch."""

    def __init__(self, d: int = 128):
        super().__init__()
        self.norm = nn.RMSNorm(d, eps=1e-6)
        self.q, self.k, self.v = (nn.Linear(d, d, bias=False) for _ in range(3))

    def forward(self, x):
        h = self.norm(x)
        return self.q(h), self.k(h), self.v(h) + x


def test_default_pipeline_runs_projections_on_tensor_cores():
    """The default kernel pipeline (schedule picks the tensor cores, materialize-mma, then
    vectorize-access, accumulate-in-place and fuse-launches over all kernels) on the kernel
    executor: three wgmma projections fused into one launch keep meaning."""
    from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

    prog = capture(Qkv(), torch.randn(1, 64, 128))
    module = prog.module.clone()
    # held to the tensor cores: one lone 64 x 64 block each, the model leaves them to SIMT
    run_pipeline(module, IR_PIPELINES["kernel"].replace("schedule", "schedule{tensor-cores=true}", 1))
    funcs = [op for op in module.walk() if op.name == "kernel.func"]
    wgmma_funcs = [f for f in funcs if any(o.name == "mma.wgmma" for o in f.walk())]
    assert len(wgmma_funcs) == 1 and "kernel.fused" in wgmma_funcs[0].attributes
    assert relative_error(prog, lambda _m, a: exec_kernel.run(module, a)) < 1e-5


@pytest.mark.parametrize("precision", ["3xtf32", "tf32"])
def test_mma_sync_kernels(precision):
    """The sm_80 path: mma.sync tiles (warps of 64 x 32, split in registers) on the kernel
    executor."""
    prog = capture(Mlp(d=128, f=128), torch.randn(1, 128, 128))
    tiles = f"tileify,chunk-matmul-k{{k-tile=32}},tensorize-matmul{{layout=mma_sync bm=128 bn=64 precision={precision}}}"
    module = _kernel_module(prog, tiles)
    assert any(op.name == "mma.sync" for op in module.walk())
    assert not any(op.name == "mma.wgmma" for op in module.walk())
    err = relative_error(prog, lambda _m, a: exec_kernel.run(module, a))
    assert err < (1e-5 if precision == "3xtf32" else 1e-2)
    assert "arch" not in print_manifest(module)  # mma.sync needs no sm_90a
