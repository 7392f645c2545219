"""The ops of issue 14 keep PyTorch's meaning at every level, on the CPU executors, in float64.

Each program of tests/frontend_ops.py is captured in float64, run on the torch executor, then
decomposed (tensor executor) and lowered through the default pipeline (loop, tile and kernel
executors, the kernel executor checking races), every time compared with PyTorch on the same
inputs: random values with 0, -0, +-inf and round's halves planted, so NaN and infinities must
come out where PyTorch's do (`frontend_ops.compare`). The same programs in float32 print CUDA
that nvcc compiles for sm_90a (a masked sdpa is one flash kernel on wgmma; with nvcc 13 the
-gencode form, as tests/test_cuda_compile.py says), two translation units built in two processes.
"""

from __future__ import annotations

import multiprocessing
import os
import shutil
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
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


def _cuda_module(names) -> ModuleOp:
    """The kernels of programs `names` in float32, renamed `<program>__<kernel>`, in one module."""
    funcs = []
    for name in names:
        fn, specs = OPS[name]
        prog = capture(module_of(fn), *make_inputs(specs, torch.float32), dtype=torch.float32)
        run_pipeline(prog.module, IR_PIPELINES["kernel"])
        for f in kernel_funcs(prog.module):
            f.detach()
            f.sym_name = StringAttr(f"{name}__{f.sym_name.data}")
            funcs.append(f)
    return ModuleOp(funcs)


def _compile_share(share: int, shares: int, out_dir: str) -> tuple[str, str | None]:
    """Every `shares`-th program from `share` on: its CUDA (one translation unit), and nvcc's
    errors or None."""
    source = print_cuda(_cuda_module(sorted(OPS)[share::shares]))
    cu = Path(out_dir) / f"ops{share}.cu"
    cu.write_text(source)
    result = subprocess.run([NVCC, "-gencode=arch=compute_90a,code=sm_90a", "-c", "-o", str(cu.with_suffix(".o")), str(cu)],
                            capture_output=True, text=True, timeout=600)  # fmt: skip
    return source, (result.stderr[:4000] if result.returncode else None)


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
def test_cuda_of_every_op_compiles(tmp_path: Path):
    """Two shares of the programs, each in a process of its own (the lowering is most of the
    time: two cores, half the wall time)."""
    ctx = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(2, mp_context=ctx) as pool:
        shares = list(pool.map(_compile_share, [0, 1], [2, 2], [str(tmp_path)] * 2))
    for _, errors in shares:
        assert errors is None, f"nvcc failed:\n{errors}"
    source = "".join(src for src, _ in shares)
    for fn in ("rintf(", "erff(", "expm1f(", "log1pf(", "fmodf(", "floorf(", "ceilf(", "truncf("):
        assert fn in source, f"no {fn} in the CUDA of the ops"
    assert "roundf(" not in source, "torch.round rounds half to even: rintf, not roundf"


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
