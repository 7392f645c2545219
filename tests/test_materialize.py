"""materialize keeps meaning and prints CUDA that compiles.

For every tile-level lit input (test/lit/tile/*.mlir with a --pass-pipeline, and the small cases
of test/lit/kernel/materialize.mlir): run its pipeline, then materialize one pass at a time
(MATERIALIZE), and
(a) after every pass the module (mixed tile/kernel IR in between) verifies and, for inputs of at
    most SMALL elements, prints and parses back to the same text and runs on exec_kernel
    (lockstep SIMT with race checks; it runs mixed IR too) to the result exec_tile gives for the
    tile-level module on the same random inputs; larger inputs are run after the last pass only;
(b) compile the printed CUDA with `nvcc -arch=sm_90 -c` (sm_90a for wgmma; skipped without nvcc).
Tensor-core tiles (materialize-mma first) compare by norm: the kernel sums in the MMA's order.
Then end to end from PyTorch: the seeds' RMSNorm, and every kernel of both decoder layers at seq
16 through nvcc.
"""

from __future__ import annotations

import io
import math
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import Float32Type
from xdsl.passes import PassPipeline
from xdsl.printer import Printer

from dpl.interpreters import exec_loop, exec_tile
from dpl.backend.cuda_printer import print_cuda
from dpl.interpreters.exec_loop import main_func
from dpl.interpreters.scalar_eval import numpy_dtype
from dpl.dialects import kernel as K
from dpl.dialects import make_context, tile
from dpl.dialects.parsing import parse_module
from dpl.transforms.pipelines import normalize_pipeline
from dpl.transforms import all_passes
from dpl.transforms.kernel.materialize import MATERIALIZE, MaterializeError
from test_tile_passes import MAX_TRIPS, trips

ROOT = Path(__file__).resolve().parent.parent
TILE = ROOT / "test" / "lit" / "tile"
NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)


def _pipeline(text: str) -> str:
    for line in text.splitlines():
        if "RUN:" in line and "--pass-pipeline=" in line:
            spec = line.split("--pass-pipeline=")[1]
            spec = spec.split("'")[1] if spec.startswith("'") else spec.split()[0]
            return normalize_pipeline(spec)
    return ""


def _cases() -> list[tuple[Path, int]]:
    cases = []
    files = [p for p in sorted(TILE.glob("*.mlir")) if "--pass-pipeline=" in p.read_text()]
    files.append(ROOT / "test" / "lit" / "kernel" / "materialize.mlir")
    for path in files:
        for i, _ in enumerate(path.read_text().split("// -----")):
            cases.append((path, i))
    return cases


CASES = _cases()


def _tile_level(path: Path, index: int):
    text = path.read_text()
    part = text.split("// -----")[index]
    ctx = make_context()
    module = parse_module(ctx, part, path.name)
    pipe = _pipeline(text)
    if pipe and pipe != "materialize":
        PassPipeline.parse_spec(all_passes(), pipe).apply(ctx, module)
    module.verify()
    return ctx, module


def _declined_attention(module) -> bool:
    """A tile-attention case it declined: the `attn.softmax_reduce` kernel stays at the loop level
    (fuse-attention builds none the flash kernel cannot take), so there is nothing to lower."""
    return any(op.name == "attn.softmax_reduce" for op in module.walk())


def _lower(path: Path, index: int):
    ctx, module = _tile_level(path, index)
    lowered = module.clone()
    PassPipeline.parse_spec(all_passes(), "materialize-attention-wgmma,materialize-attention,materialize-mma,materialize").apply(ctx, lowered)
    lowered.verify()
    return module, lowered


def _text(module) -> str:
    out = io.StringIO()
    Printer(stream=out).print_op(module)
    return out.getvalue()


#: Inputs of at most this many elements are run after every pass, larger ones after the last.
SMALL = 1 << 16


def _has_tile(module) -> bool:
    return any(isinstance(op, tile.KernelOp) for op in module.walk())


@pytest.mark.parametrize("path,index", CASES, ids=[f"{p.stem}-{i}" for p, i in CASES])
def test_materialize_keeps_meaning(path: Path, index: int, monkeypatch):
    from dpl.interpreters import exec_kernel

    case = parse_module(make_context(), path.read_text().split("// -----")[index], path.name)
    if trips(case) > MAX_TRIPS:
        pytest.skip("a loop nest too large for the NumPy executors (see test_tile_passes.MAX_TRIPS)")
    ctx, module = _tile_level(path, index)
    if _declined_attention(module):
        pytest.skip("a declined attention case: nothing at the tile level")
    if not main_func(module).function_type.outputs:
        pytest.skip("nothing to compare: @main returns nothing (set-target's cases)")
    args = main_func(module).body.block.args
    rng = np.random.default_rng(index)
    inputs = [rng.standard_normal(tuple(a.type.get_shape())).astype(numpy_dtype(a.type.element_type)) for a in args]
    before_mutation = [x.copy() for x in inputs]
    if any(isinstance(op, tile.AtomicOp) for op in module.walk()):
        # the tile level leaves the atomic output's start to the runtime (and the mixed levels
        # before atomic-init-kernels too): start it at zero
        monkeypatch.setattr(exec_loop, "alloc_poisoned", lambda t: np.zeros(tuple(t.get_shape()), numpy_dtype(t.element_type)))
    before = exec_tile.run(module, inputs)
    f32 = any(isinstance(a.type.element_type, Float32Type) for a in args)
    tol = dict(rtol=1e-5, atol=1e-5) if f32 else dict(rtol=1e-9, atol=1e-11)
    small = sum(math.prod(a.type.get_shape()) for a in args) <= SMALL
    tensor_cores = any(op.name in ("mma.dot", "attn.flash") for op in module.walk())  # sums in another order
    passes = ["materialize-attention-wgmma", "materialize-attention", "materialize-mma", *MATERIALIZE.split(",")]
    for i, name in enumerate(passes):
        PassPipeline.parse_spec(all_passes(), name).apply(ctx, module)
        module.verify()
        if small:
            text = _text(module)
            again = parse_module(make_context(), text, f"after {name}")
            again.verify()
            assert _text(again) == text, f"{name}: the IR does not print and parse back the same"
        if small or i == len(passes) - 1:
            after = exec_kernel.run(module, [x.copy() for x in before_mutation])
            assert len(before) == len(after) >= 1
            for b, a in zip(before, after):
                assert not np.isnan(a).any(), f"after {name}: an output element was never written"
                if tensor_cores:
                    assert np.linalg.norm(a - b) / np.linalg.norm(b) < 1e-6, f"after {name}"
                else:
                    np.testing.assert_allclose(a, b, **tol, err_msg=f"after {name}")
    assert not _has_tile(module)
    assert any(isinstance(op, K.LaunchOp) for op in module.walk())


def _nvcc(source: str, tmp_path: Path, stem: str) -> None:
    cu = tmp_path / f"{stem}.cu"
    cu.write_text(source)
    arch = "-gencode=arch=compute_90a,code=sm_90a" if "wgmma" in source else "-arch=sm_90"
    result = subprocess.run(
        [NVCC, arch, "-c", "-o", str(tmp_path / f"{stem}.o"), str(cu)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert result.returncode == 0, f"nvcc failed on {stem}:\n{result.stderr}\n{source}"


FILES = sorted({p for p, _ in CASES})


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_materialized_cuda_compiles(path: Path, tmp_path: Path):
    """All cases of one lit file in one translation unit (kernel names made unique)."""
    sources = []
    for i, (p, index) in enumerate(c for c in CASES if c[0] == path):
        if _declined_attention(_tile_level(p, index)[1]):
            continue
        _, lowered = _lower(p, index)
        for f in lowered.walk():
            if isinstance(f, K.KernelFuncOp):
                f.sym_name = type(f.sym_name)(f"{f.sym_name.data}_{i}")
        sources.append(print_cuda(lowered))
    _nvcc("\n".join(sources), tmp_path, path.stem)


def test_unsupported_op_is_one_line_error():
    text = (ROOT / "test" / "lit" / "kernel" / "materialize-errors.mlir").read_text()
    ctx = make_context()
    module = parse_module(ctx, text, "errors.mlir")
    with pytest.raises(MaterializeError) as info:
        PassPipeline.parse_spec(all_passes(), "materialize").apply(ctx, module)
    message = str(info.value)
    assert "\n" not in message
    assert "@k_scratch" in message and "'memref.alloca'" in message


#: Kernels materialize cannot lower: (IR, pipeline, the one-line error after "materialize: ").
ERRORS = [
    (
        """
func.func @main(%x: memref<8x8xf32>) -> memref<8x8xf32> {
  %y = memref.alloc() : memref<8x8xf32>
  tile.kernel @k_huge ins(%x : memref<8x8xf32>) outs(%y : memref<8x8xf32>) {
    tile.tile (%a : 16777216 = block, %b : 16777216 = block) {
      %v = loop.load %x[%a mod 8, %b mod 8] : memref<8x8xf32>
      loop.store %v, %y[%a mod 8, %b mod 8] : memref<8x8xf32>
    }
  }
  func.return %y : memref<8x8xf32>
}
""",
        "materialize",
        "@k_huge: 'tile.tile' has 281474976710656 blocks, more than CUDA's grid allows",
    ),
    (
        """
func.func @main(%x: memref<2x1024xf32>) -> memref<2xf32> {
  %y = memref.alloc() : memref<2xf32>
  tile.kernel @k_wide_sum ins(%x : memref<2x1024xf32>) outs(%y : memref<2xf32>) {
    tile.tile (%r : 2 = thread, %c : 1024 = thread) {
      %v = loop.load %x[%r, %c] : memref<2x1024xf32>
      %s = tile.combine add %v across [%c] tree : f32
      loop.store %s, %y[%r] : memref<2xf32>
    }
  }
  func.return %y : memref<2xf32>
}
""",
        "materialize",
        "@k_wide_sum: 'tile.combine' needs one block, but the tile has 2048 threads",
    ),
    (
        """
func.func @main(%x: memref<8xf32>) -> memref<8xf32> {
  %y = memref.alloc() : memref<8xf32>
  tile.kernel @k_cells ins(%x : memref<8xf32>) outs(%y : memref<8xf32>) {
    tile.tile (%t : 4 = thread, %c : 2 = cell) {
      %v = loop.load %x[%t * 2 + %c] : memref<8xf32>
      loop.store %v, %y[%t * 2 + %c] : memref<8xf32>
    }
  }
  func.return %y : memref<8xf32>
}
""",
        "outline-kernels",
        "@k_cells: 'tile.tile' still has cell axes (unroll-cells runs first)",
    ),
    (
        """
func.func @main(%x: memref<8xf32>) -> memref<8xf32> {
  %y = memref.alloc() : memref<8xf32>
  tile.kernel @k_cells ins(%x : memref<8xf32>) outs(%y : memref<8xf32>) {
    tile.tile (%t : 4 = thread, %c : 2 = cell) {
      %v = loop.load %x[%t * 2 + %c] : memref<8xf32>
      loop.store %v, %y[%t * 2 + %c] : memref<8xf32>
    }
  }
  func.return %y : memref<8xf32>
}
""",
        "unroll-cells,outline-kernels,lower-axes",
        "@k_cells: 'loop.load' is left in the tile (the passes of materialize run before lower-axes)",
    ),
    (
        """
func.func @main(%x: memref<60000xf32>) -> memref<60000xf32> {
  %y = memref.alloc() : memref<60000xf32>
  tile.kernel @k_smem ins(%x : memref<60000xf32>) outs(%y : memref<60000xf32>) {
    tile.tile (%t : 256 = thread) {
      %s = tile.stage %x origin [0] slab [60000 at 0] : memref<60000xf32> -> memref<60000xf32, #tile.smem>
      tile.strided_for free %i = %t to 60000 step 256 {
        %v = loop.load %s[%i] : memref<60000xf32, #tile.smem>
        loop.store %v, %y[%i] : memref<60000xf32>
      }
    }
  }
  func.return %y : memref<60000xf32>
}
""",
        "materialize",
        "@k_smem: 'kernel.smem' needs 240000 bytes of shared memory, more than the 232448 a block can have",
    ),
    (
        """
func.func @main(%x: memref<32xf32>) -> memref<32xf32> {
  %y = memref.alloc() : memref<32xf32>
  tile.kernel @k_mixed ins(%x : memref<32xf32>) outs(%y : memref<32xf32>) {
    tile.tile (%t : 32 = thread) {
      %v = loop.load %x[%t] : memref<32xf32>
      tile.atomic add %v, %y[%t] : memref<32xf32>
      tile.atomic max %v, %y[%t] : memref<32xf32>
    }
  }
  func.return %y : memref<32xf32>
}
""",
        "materialize",
        "@k_mixed: 'tile.atomic' folds one buffer with two different combiners",
    ),
    (
        """

func.func @main(%x: memref<32xf64>) -> memref<32xf64> {
  tile.kernel @k_twice ins(%x : memref<32xf64>) outs(%x : memref<32xf64>) {
    tile.tile (%t : 32 = thread) {
      %v = loop.load %x[%t] : memref<32xf64>
      loop.store %v, %x[%t] : memref<32xf64>
    }
  }
  func.return %x : memref<32xf64>
}
""",
        "materialize",
        "@k_twice: 'tile.kernel' passes one buffer twice",
    ),
    (
        """
func.func @main(%x: memref<4x64xf32>) -> memref<4x64xf32> {
  %y = memref.alloc() : memref<4x64xf32>
  tile.kernel @k_tma ins(%x : memref<4x64xf32>) outs(%y : memref<4x64xf32>) {
    tile.tile (%t : 16 = thread) {
      loop.for free %k < 4 {
        loop.for free %j < 2 {
          %s = tile.stage %x origin [%k, 0] slab [64 at 1] buffers 2 at %k tma : memref<4x64xf32> -> memref<2x64xf32, #tile.smem>
          %v = loop.load %s[%k mod 2, %t * 4 + %j] : memref<2x64xf32, #tile.smem>
          loop.store %v, %y[%k, %t * 4 + %j] : memref<4x64xf32>
        }
      }
    }
  }
  func.return %y : memref<4x64xf32>
}
""",
        "materialize",
        "@k_tma: 'tile.stage' with buffers needs its buffer loop to be the innermost enclosing loop",
    ),
]


@pytest.mark.parametrize("text,pipeline,message", ERRORS, ids=[m.split(":")[0] for _, _, m in ERRORS])
def test_materialize_errors_are_one_line(text: str, pipeline: str, message: str):
    ctx = make_context()
    module = parse_module(ctx, text, "bad.mlir")
    module.verify()
    with pytest.raises(MaterializeError) as info:
        PassPipeline.parse_spec(all_passes(), pipeline).apply(ctx, module)
    assert str(info.value) == f"materialize: {message}"


def _compile_program(argv: list[str]):
    from dpl.tools import dpl as driver

    args = driver.argparse.Namespace(
        expr=None, model=None, seq=16, num_layers=None, dtype="f32", verbose=0, ir="tile",
        pipeline=None,
    )  # fmt: skip
    for key, value in zip(argv[::2], argv[1::2]):
        setattr(args, key, value)
    prog = driver.capture_program(args)
    return prog


def test_rms_norm_from_pytorch_keeps_meaning():
    from dpl.interpreters import exec_kernel
    from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

    prog = _compile_program(["expr", "torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))", "dtype", "f64"])
    module = prog.module
    run_pipeline(module, IR_PIPELINES["tile"])
    lowered = module.clone()
    run_pipeline(lowered, "materialize")
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((1, 32, 2048)), rng.standard_normal(2048)
    inputs = [x, w][: len(main_func(module).body.block.args)]
    (ref,) = exec_tile.run(module, inputs)
    (out,) = exec_kernel.run(lowered, inputs)
    np.testing.assert_allclose(out, ref, rtol=1e-10)


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
@pytest.mark.parametrize("seq", [16, 128])
@pytest.mark.parametrize("model", ["tinyllama-layer", "qwen2.5-7b-layer"])
def test_decoder_layer_cuda_compiles(model: str, seq: int, tmp_path: Path):
    """`dpl compile --model M --seq S --ir tile`, materialize, print, nvcc: every kernel (seq
    128 is what the GPU runs; its stages outgrow 48 KiB of static shared memory)."""
    from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

    prog = _compile_program(["model", model, "seq", seq])
    module = prog.module
    run_pipeline(module, IR_PIPELINES["kernel"])
    funcs = [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]
    launches = [op for op in module.walk() if isinstance(op, K.LaunchOp)]
    assert funcs and len(launches) >= len(funcs) - sum(f.sym_name.data.endswith("_init") for f in funcs)
    assert not any(isinstance(op, tile.KernelOp) for op in module.walk())
    _nvcc(print_cuda(module), tmp_path, model.replace(".", "_"))
