"""The ops of issue 14 keep PyTorch's meaning at every level, on the CPU executors, in float64.

Each program of tests/frontend_ops.py is captured in float64, run on the torch executor, then
decomposed (tensor executor) and lowered through the default pipeline (loop, tile and kernel
executors, the kernel executor checking races), every time compared with PyTorch on the same
inputs: random values with 0, -0, +-inf and round's halves planted, so NaN and infinities must
come out where PyTorch's do (`frontend_ops.compare`). The same programs in float32 print CUDA
that nvcc compiles (one translation unit for all of them).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from xdsl.dialects.builtin import ModuleOp, StringAttr

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frontend_ops import OPS, compare, flat_outputs, make_inputs, module_of  # noqa: E402

from dpl.backend.cuda_printer import kernel_funcs, print_cuda  # noqa: E402
from dpl.frontend import capture  # noqa: E402
from dpl.interpreters import exec_kernel, exec_loop, exec_tensor, exec_tile, exec_torch  # noqa: E402
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline  # noqa: E402

TOL = 1e-9
NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)


def _stages() -> list[tuple[str, str, object]]:
    """(level, passes from the previous level, executor): torch -> tensor -> loop -> tile -> kernel."""
    loop_passes = IR_PIPELINES["loop"][len(IR_PIPELINES["tensor"]) + 1 :]
    tile_passes = IR_PIPELINES["tile"][len(IR_PIPELINES["loop"]) + 1 :]
    kernel_passes = IR_PIPELINES["kernel"][len(IR_PIPELINES["tile"]) + 1 :]
    return [
        ("torch", "", exec_torch.run),
        ("tensor", IR_PIPELINES["tensor"], exec_tensor.run),
        ("loop", loop_passes, exec_loop.run),
        ("tile", tile_passes, exec_tile.run),
        ("kernel", kernel_passes, exec_kernel.run),
    ]


@pytest.mark.parametrize("name", sorted(OPS))
def test_every_level_matches_pytorch(name: str):
    fn, specs = OPS[name]
    module = module_of(fn)
    prog = capture(module, *make_inputs(specs, seed=0), dtype=torch.float64)
    inputs = make_inputs(specs, seed=1)
    with torch.no_grad():
        refs = [r.numpy() for r in flat_outputs(prog.fn(*inputs))]
    arrays = [x.numpy() for x in inputs] + [a.detach().numpy() for a in prog.args[prog.num_inputs :]]
    ir = prog.module
    for level, passes, run in _stages():
        run_pipeline(ir, passes)
        with np.errstate(all="ignore"):
            outs = run(ir, arrays)
        assert len(outs) == len(refs), f"{level}: {len(outs)} outputs, PyTorch gives {len(refs)}"
        for i, (o, r) in enumerate(zip(outs, refs)):
            err = compare(o, r)
            assert err < TOL, f"{name} at the {level} level, output {i}: error {err:.2e}\n{o}\n{r}"


def _cuda_module() -> ModuleOp:
    """Every program's kernels in float32, renamed `<program>__<kernel>`, in one module."""
    funcs = []
    for name in sorted(OPS):
        fn, specs = OPS[name]
        prog = capture(module_of(fn), *make_inputs(specs, torch.float32), dtype=torch.float32)
        run_pipeline(prog.module, IR_PIPELINES["kernel"])
        for f in kernel_funcs(prog.module):
            f.detach()
            f.sym_name = StringAttr(f"{name}__{f.sym_name.data}")
            funcs.append(f)
    return ModuleOp(funcs)


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
def test_cuda_of_every_op_compiles(tmp_path: Path):
    source = print_cuda(_cuda_module())
    for fn in ("rintf(", "erff(", "expm1f(", "log1pf(", "fmodf(", "floorf(", "ceilf(", "truncf("):
        assert fn in source, f"no {fn} in the CUDA of the ops"
    assert "roundf(" not in source, "torch.round rounds half to even: rintf, not roundf"
    cu = tmp_path / "ops.cu"
    cu.write_text(source)
    result = subprocess.run(
        [NVCC, "-arch=sm_90", "-c", "-o", str(tmp_path / "ops.o"), str(cu)],
        capture_output=True, text=True, timeout=600,
    )
    assert result.returncode == 0, f"nvcc failed:\n{result.stderr[:4000]}"


def test_hypot_does_not_overflow():
    """hypot of magnitudes whose squares overflow float64 (1e300) or underflow it (1e-300) is
    finite and exact to rounding at every level, as PyTorch's."""
    prog = capture(module_of(torch.hypot), *make_inputs([("fin", (4,)), ("fin", (4,))]), dtype=torch.float64)
    a = torch.tensor([3e300, -1e300, 3e-300, 1e-310], dtype=torch.float64)
    b = torch.tensor([4e300, 1e-300, -4e-300, 0.0], dtype=torch.float64)
    ref = torch.hypot(a, b).numpy()
    for level, passes, run in _stages():
        run_pipeline(prog.module, passes)
        (out,) = run(prog.module, [a.numpy(), b.numpy()])
        assert np.allclose(out, ref, rtol=1e-15, atol=0), f"{level}: {out} != {ref}"
