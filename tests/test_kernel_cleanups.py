"""The kernel-level cleanups vectorize-access, drop-redundant-barriers, accumulate-in-place and
contract-accumulations keep each kernel's meaning (every lit case, and the seeds' RMSNorm, run through the kernel executor
before and after on random float32 inputs), say why they decline, and print CUDA that nvcc
compiles."""

from __future__ import annotations

import os
import re
import shutil
import struct
import subprocess
from pathlib import Path

import numpy as np
import pytest

from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import kernel as K
from dpl.dialects import make_context
from dpl.dialects.parsing import parse_module
from dpl.transforms.kernel.accumulate_in_place import AccumulateInPlace
from dpl.transforms.kernel.contract_accumulations import ContractAccumulations
from dpl.transforms.kernel.drop_redundant_barriers import DropRedundantBarriers
from dpl.transforms.kernel.flatten_buffers import FlattenBuffers
from dpl.transforms.kernel.vectorize_access import VectorizeAccess
from conftest import lit_cases
from test_tile_passes import MAX_TRIPS, trips

exec_kernel = pytest.importorskip("dpl.interpreters.exec_kernel")

ROOT = Path(__file__).resolve().parent.parent
LIT = ROOT / "test/lit/kernel"
NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)
PASSES = {
    "vectorize-access": VectorizeAccess,
    "drop-redundant-barriers": DropRedundantBarriers,
    "accumulate-in-place": AccumulateInPlace,
    "contract-accumulations": ContractAccumulations,
    "flatten-buffers": FlattenBuffers,  # the launch then passes each buffer as the kernel's flat view
}


def _cases(name: str) -> list[str]:
    return lit_cases(LIT / f"{name}.mlir", "kernel.func")


def _kernel_cases() -> list[tuple[str, str]]:
    cases = [(name, text) for name in PASSES for text in _cases(name)]
    rms = (ROOT / "test/lit/translate/rms_norm.mlir").read_text()
    cases += [(name, rms) for name in PASSES]
    return cases


def _case_id(case: tuple[str, str]) -> str:
    name, text = case
    kernel = re.search(r"kernel\.func @(\w+)", text)
    assert kernel is not None
    return f"{name}:{kernel.group(1)}"


def _with_main(text: str) -> tuple[object, K.KernelFuncOp]:
    """The case's kernel with an @main that launches it on every argument and returns the
    arguments it writes (the case's own @main, where it has one)."""
    module = parse_module(make_context(), text, "case.mlir")
    if "func.func @main" in text:
        (func,) = [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]
        return module, func
    (func,) = [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]
    types = [str(a.type) for a in func.args]
    written = [i for i, a in enumerate(func.args) if a in func.written_args()]
    args = ", ".join(f"%a{i}: {t}" for i, t in enumerate(types))
    operands = ", ".join(f"%a{i}" for i in range(len(types)))
    results = ", ".join(types[i] for i in written)
    returned = ", ".join(f"%a{i}" for i in written)
    main = (
        f"func.func @main({args}) -> ({results}) {{\n"
        f"  kernel.launch @{func.sym_name.data}({operands}) : {', '.join(types)}\n"
        f"  func.return {returned} : {results}\n}}\n"
    )
    module = parse_module(make_context(), text + main, "case.mlir")
    module.verify()
    (func,) = [op for op in module.walk() if isinstance(op, K.KernelFuncOp)]
    return module, func


def _inputs(args, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(a.type.get_shape()).astype(np.float32) for a in args]


@pytest.mark.parametrize("case", _kernel_cases(), ids=_case_id)
def test_pass_keeps_meaning(case: tuple[str, str]):
    name, text = case
    module, func = _with_main(text)
    if any("f64" in str(a.type) for a in func.args):
        pytest.skip("float32 inputs only")
    main = next(op for op in module.walk() if getattr(op, "sym_name", None) and op.sym_name.data == "main")
    inputs = _inputs(main.body.block.args)
    before = exec_kernel.run(module, [x.copy() for x in inputs])
    PASSES[name]().apply(make_context(), module)
    module.verify()
    after = exec_kernel.run(module, [x.copy() for x in inputs])
    assert len(before) == len(after) > 0
    for b, a in zip(before, after):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)


def _count(module, cls) -> int:
    return sum(isinstance(op, cls) for op in module.walk())


def test_vectorize_rewrites_and_declines(pass_log):
    module = parse_module(make_context(), (LIT / "vectorize-access.mlir").read_text(), "v.mlir")
    VectorizeAccess().apply(make_context(), module)
    log = pass_log
    module.verify()
    vector_loads = [
        op for op in module.walk() if isinstance(op, K.LoadOp) and K.is_float4(op.result.type)
    ]
    assert len(vector_loads) == 11
    for reason in (
        "@k_f64: loop %i stays scalar: the access to %x is of f64, not f32",
        "@k_odd: loop %i stays scalar: the upper bound 66 is not a multiple of 4",
        "@k_shift: loop %i stays scalar: the access to %x is not provably 16-byte aligned",
        "@k_col: loop %i stays scalar: the access to %x has the loop variable outside",
        "@k_step: loop %i stays scalar: the lower bound is not a thread index ranging over [0, 64)",
        "@k_own: loop %i stays scalar: threads would own other elements",
        "@k_alias: loop %i stays scalar: %x is written and accessed at another index",
        "@k_exact: loop %k stays scalar: the trip count 2 is not a multiple of 4",
        "@k_masked: loop %i stays scalar: a masked load's mask varies with the loop variable",
        "@k_guard_varies: loop %i stays scalar: a guard's condition varies with the loop variable",
        "@k_guard_else: loop %i stays scalar: the body holds 'kernel.if' with an else branch",
    ):
        assert reason in log.text
    for kept in ("@k_mul", "@k_rms_norm", "@k_masked_row", "@k_guarded_row"):
        assert kept not in log.text


def test_contract_accumulations_counts_and_declines(pass_log):
    module = parse_module(make_context(), (LIT / "contract-accumulations.mlir").read_text(), "c.mlir")
    ContractAccumulations().apply(make_context(), module)
    module.verify()
    assert "@k_tile: 3 multiply-adds -> math.fma" in pass_log.text
    assert "@k_squares: 1 multiply-adds -> math.fma" in pass_log.text
    assert "@k_bare: 1 multiply-adds -> math.fma" in pass_log.text
    assert "@k_declined: declined: no product is added into an accumulator" in pass_log.text


def test_vectorize_is_idempotent(pass_log):
    module = parse_module(make_context(), _cases("vectorize-access")[0], "v.mlir")
    VectorizeAccess().apply(make_context(), module)
    first = str(module)
    pass_log.lines.clear()
    VectorizeAccess().apply(make_context(), module)
    assert str(module) == first
    assert "the loop is already vectorised" in pass_log.text


def test_drop_barriers_counts():
    module = parse_module(
        make_context(), (LIT / "drop-redundant-barriers.mlir").read_text(), "b.mlir"
    )
    before = _count(module, K.BarrierOp)
    DropRedundantBarriers().apply(make_context(), module)
    module.verify()
    assert (before, _count(module, K.BarrierOp)) == (14, 9)


def test_rms_norm_seed_cleans_up():
    """The seeds' RMSNorm kernel: its three 2048-long loops go float4, its barriers all stay
    (each publishes shared writes to other warps)."""
    module = parse_module(
        make_context(), (ROOT / "test/lit/translate/rms_norm.mlir").read_text(), "r.mlir"
    )
    barriers = _count(module, K.BarrierOp)
    VectorizeAccess().apply(make_context(), module)
    DropRedundantBarriers().apply(make_context(), module)
    module.verify()
    assert _count(module, K.BarrierOp) == barriers
    source = print_cuda(module)
    assert source.count("reinterpret_cast<const float4*>") == 4  # x, x_smem twice, p_weight


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
@pytest.mark.parametrize("name", list(PASSES))
def test_cuda_after_pass_compiles(name: str, tmp_path: Path):
    module = parse_module(make_context(), (LIT / f"{name}.mlir").read_text(), f"{name}.mlir")
    PASSES[name]().apply(make_context(), module)
    module.verify()
    source = print_cuda(module)
    cu = tmp_path / "k.cu"
    cu.write_text(source)
    result = subprocess.run(
        [NVCC, "-arch=sm_90", "-c", "-o", str(tmp_path / "k.o"), str(cu)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert result.returncode == 0, f"nvcc failed after {name}:\n{result.stderr}\n{source}"


def _cuda_available() -> bool:
    try:
        import torch

        return torch.cuda.is_available()
    except ImportError:
        return False


@pytest.mark.gpu
@pytest.mark.skipif(not _cuda_available(), reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("case", _kernel_cases(), ids=_case_id)
def test_gpu_after_pass_matches_executor(case: tuple[str, str]):
    """The cleaned-up kernel on the GPU (NVRTC, float4 accesses for real) gives what the
    executor gives for the original kernel."""
    import torch

    from dpl.driver.host import HostProgram

    name, text = case
    module, func = _with_main(text)
    if any("f64" in str(a.type) for a in func.args):
        pytest.skip("float32 inputs only")
    main = next(op for op in module.walk() if getattr(op, "sym_name", None) and op.sym_name.data == "main")
    inputs = _inputs(main.body.block.args, seed=1)
    expected = exec_kernel.run(module, [x.copy() for x in inputs])
    PASSES[name]().apply(make_context(), module)
    got = HostProgram(module)(*[torch.from_numpy(x.copy()).cuda() for x in inputs])
    torch.cuda.synchronize()
    for e, g in zip(expected, got):
        np.testing.assert_allclose(g.cpu().numpy(), e, rtol=1e-5, atol=1e-5)


def _in_float32(text: str) -> str:
    """A lit case's f64 IR in f32: types, and 64-bit hex float constants as their f32 bits."""

    def hex32(m: re.Match) -> str:
        value = struct.unpack("<d", int(m.group(1), 16).to_bytes(8, "little"))[0]
        return f"0x{struct.unpack('<I', struct.pack('<f', value))[0]:08x} : f32"

    return re.sub(r"0x([0-9a-fA-F]{16}) : f64", hex32, text).replace("f64", "f32")


def _tile_cases() -> list[tuple[Path, int]]:
    files = [p for p in sorted((ROOT / "test/lit/tile").glob("*.mlir")) if "--pass-pipeline=" in p.read_text()]
    return [
        (p, i) for p in files for i, c in enumerate(p.read_text().split("// -----"))
        if "func.func @main" in c
    ]  # fmt: skip


@pytest.mark.parametrize("path,index", _tile_cases(), ids=lambda x: x.stem if isinstance(x, Path) else str(x))
def test_cleanups_after_materialize_keep_meaning(path: Path, index: int):
    """Every tile-level lit case, lowered by its pipeline and materialize(-mma) (in float32), means the
    same under the kernel executor after vectorize-access and drop-redundant-barriers."""
    from xdsl.passes import PassPipeline

    from dpl.interpreters.exec_loop import main_func
    from dpl.transforms.pipelines import normalize_pipeline
    from dpl.transforms import all_passes

    text = path.read_text()
    spec = ""
    for line in text.splitlines():
        if "RUN:" in line and "--pass-pipeline=" in line:
            spec = line.split("--pass-pipeline=")[1]
            spec = normalize_pipeline(spec.split("'")[1] if spec.startswith("'") else spec.split()[0])
            break
    ctx = make_context()
    module = parse_module(ctx, _in_float32(text.split("// -----")[index]), path.name)
    if trips(module) > MAX_TRIPS:
        pytest.skip("a loop nest too large for the NumPy executors (see test_tile_passes.MAX_TRIPS)")
    if spec and spec != "materialize":
        PassPipeline.parse_spec(all_passes(), spec).apply(ctx, module)
    if any(op.name == "attn.softmax_reduce" for op in module.walk()):
        pytest.skip("a declined attention case: nothing at the tile level")
    PassPipeline.parse_spec(all_passes(), "materialize-attention-wgmma,materialize-attention,materialize-mma,materialize").apply(ctx, module)
    rng = np.random.default_rng(index)
    inputs = [
        rng.standard_normal(a.type.get_shape()).astype(np.float32)
        for a in main_func(module).body.block.args
    ]
    before = exec_kernel.run(module, [x.copy() for x in inputs])
    VectorizeAccess().apply(ctx, module)
    DropRedundantBarriers().apply(ctx, module)
    module.verify()
    after = exec_kernel.run(module, [x.copy() for x in inputs])
    for b, a in zip(before, after):
        # vectorize-access regroups a reduce's sums ((v0 + v1) + (v2 + v3)): compare at the
        # output's scale, so an element that cancels to near 0 is not judged by its own size.
        scale = float(np.abs(b).max()) or 1.0
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6 * scale)
        assert np.linalg.norm(a - b) <= 1e-5 * np.linalg.norm(b)
