"""materialize keeps meaning and prints CUDA that compiles.

For every tile-level lit input (test/lit/tile/*.mlir with a --pass-pipeline, and the small cases
of test/lit/kernel/materialize.mlir): run its pipeline, then materialize, then
(a) compile the printed CUDA with `nvcc -arch=sm_90 -c` (skipped without nvcc) and
(b) run the kernel-level module with backend/exec_kernel (lockstep SIMT with race checks) and
compare with exec_tile on the same random float64 inputs (tensor-core tiles, lowered by
materialize-mma, by norm: the kernel sums in the MMA's order). Then end to end from PyTorch: the
seeds' RMSNorm, and every kernel of both decoder layers at seq 16 through nvcc.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import Float32Type
from xdsl.passes import PassPipeline

from dpl.interpreters import exec_loop, exec_tile
from dpl.backend.cuda_printer import print_cuda
from dpl.interpreters.exec_loop import main_func
from dpl.dialects import kernel as K
from dpl.dialects import make_context, tile
from dpl.dialects.parsing import parse_module
from dpl.transforms.pipelines import normalize_pipeline
from dpl.transforms import all_passes
from dpl.transforms.kernel.materialize import MaterializeError

ROOT = Path(__file__).resolve().parent.parent
TILE = ROOT / "test" / "lit" / "tile"
NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)
HAVE_EXEC_KERNEL = importlib.util.find_spec("dpl.interpreters.exec_kernel") is not None


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


def _lower(path: Path, index: int):
    text = path.read_text()
    part = text.split("// -----")[index]
    ctx = make_context()
    module = parse_module(ctx, part, path.name)
    pipe = _pipeline(text)
    if pipe and pipe != "materialize":
        PassPipeline.parse_spec(all_passes(), pipe).apply(ctx, module)
    module.verify()
    lowered = module.clone()
    PassPipeline.parse_spec(all_passes(), "materialize-mma,materialize").apply(ctx, lowered)
    lowered.verify()
    return module, lowered


def _has_tile(module) -> bool:
    return any(isinstance(op, tile.KernelOp) for op in module.walk())


@pytest.mark.parametrize("path,index", CASES, ids=[f"{p.stem}-{i}" for p, i in CASES])
def test_materialize_keeps_meaning(path: Path, index: int, monkeypatch):
    if not HAVE_EXEC_KERNEL:
        pytest.skip("dpl.interpreters.exec_kernel is not there yet")
    from dpl.interpreters import exec_kernel

    module, lowered = _lower(path, index)
    assert not _has_tile(lowered)
    assert any(isinstance(op, K.LaunchOp) for op in lowered.walk())
    rng = np.random.default_rng(index)
    inputs = [rng.standard_normal(tuple(a.type.get_shape())) for a in main_func(module).body.block.args]
    if any(isinstance(op, tile.AtomicOp) for op in module.walk()):
        # the tile level leaves the atomic output's start to the runtime: start it at zero
        monkeypatch.setattr(exec_loop, "alloc_poisoned", lambda t: np.zeros(tuple(t.get_shape())))
        before = exec_tile.run(module, inputs)
        monkeypatch.undo()
    else:
        before = exec_tile.run(module, inputs)
    after = exec_kernel.run(lowered, inputs)
    f32 = any(
        isinstance(a.type.element_type, Float32Type) for a in main_func(module).body.block.args
    )
    tol = dict(rtol=1e-5, atol=1e-5) if f32 else dict(rtol=1e-9, atol=1e-11)
    tensor_cores = any(op.name == "mma.dot" for op in module.walk())  # sums in another order
    assert len(before) == len(after) >= 1
    for b, a in zip(before, after):
        assert not np.isnan(a).any(), "an output element was never written"
        if tensor_cores:
            assert np.linalg.norm(a - b) / np.linalg.norm(b) < 1e-6
        else:
            np.testing.assert_allclose(a, b, **tol)


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
    if not HAVE_EXEC_KERNEL:
        pytest.skip("dpl.interpreters.exec_kernel is not there yet")
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
