"""The tuning space read from the passes (transforms/tunable.py, schedule.kernel_space) and the
points `schedule` honours: every declared choice passes its pass's own option checks, the
heuristics' own point (default_point) reproduces the heuristics' IR exactly, and random points of
each class's space keep meaning (kernel IR on the CPU executor against the loop IR, float64) and
print CUDA that nvcc compiles."""

from __future__ import annotations

import dataclasses
import os
import random
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch

from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import loop, make_context, tile
from dpl.frontend import capture_expression
from dpl.interpreters import exec_kernel, exec_loop
from dpl.interpreters.exec_loop import main_func
from dpl.transforms import all_passes
from dpl.transforms.pipelines import IR_PIPELINES, kernel_schedule, run_pipeline
from dpl.transforms.tile.schedule import (
    POINT,
    SCHEDULE,
    SPLIT_EPILOGUE,
    Schedule,
    class_space,
    kernel_space,
    point_attr,
    point_spec,
)
from dpl.transforms.tunable import tunables

NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)

#: One program per kernel class (small, so the kernel executor is quick).
PROGRAMS = {
    "pointwise": "torch.nn.functional.silu(torch.randn(8,96)) * torch.randn(8,96)",
    "row reduction": "torch.nn.RMSNorm(64)(torch.randn(1,6,64))",
    "matmul": "torch.nn.functional.linear(torch.randn(24,64), torch.randn(40,64), torch.randn(40))",
    "matmul epilogue": "torch.nn.functional.silu(torch.randn(16,32)) * (torch.randn(16,64) @ torch.randn(64,32))",
}


def loop_module(expr: str):
    module = capture_expression(expr, dtype=torch.float64).module
    run_pipeline(module, IR_PIPELINES["loop"] + ",split-nests")
    return module


def kernels(module) -> list[loop.KernelOp]:
    return [k for k in module.walk() if isinstance(k, loop.KernelOp)]


def test_every_choice_passes_its_pass_checks():
    declared = {}
    for name, get in all_passes().items():
        cls = get()
        for option, choices in tunables(cls).items():
            declared[f"{name}.{option}"] = choices
            for c in choices:
                dataclasses.replace(cls(), **{option: c})  # __post_init__ range checks
    assert {"register-tile.rows", "chunk-matmul-k.k_tile", "split-matmul-k.splits",
            "blockify-launch.block_size", "vectorize-pointwise.width", "schedule.split_epilogue"} <= set(declared)  # fmt: skip


def test_space_is_read_from_the_class_pipeline():
    mm = class_space("matmul")
    assert mm["rows"] == (1, 2, 4, 8) and mm[SPLIT_EPILOGUE] == (False, True)
    assert "width" not in mm and "rows" not in class_space("pointwise")
    assert set(class_space("row reduction")) == {"block_size", "min_reuse", "max_extent"}
    # the split of the epilogue is a dimension only where there is an epilogue to split
    (plain,) = kernels(loop_module("torch.randn(16,64) @ torch.randn(64,32)"))
    assert SPLIT_EPILOGUE not in kernel_space(plain)


def test_bad_points_are_one_line_errors():
    with pytest.raises(ValueError, match="'width' is not a tunable option of a matmul kernel"):
        point_spec("matmul", {"width": 2}, "sm_90", 132)
    with pytest.raises(ValueError, match="pipeline-k-outer: depth must be at least 2, got 1"):
        point_spec("matmul", {"depth": 1}, "sm_90", 132)


def _strip(module) -> str:
    for k in module.walk():
        if isinstance(k, tile.KernelOp):
            k.attributes.pop(POINT, None)
    return str(module)


@pytest.mark.parametrize("cls", list(PROGRAMS))
def test_default_point_is_what_the_heuristics_do(cls: str):
    ctx = make_context()
    heuristic = loop_module(PROGRAMS[cls])
    pointed = heuristic.clone()
    Schedule().apply(ctx, heuristic)
    for k in kernels(pointed):
        k.attributes[POINT] = point_attr(Schedule().default_point(ctx, k))
    Schedule().apply(ctx, pointed)
    assert _strip(pointed) == _strip(heuristic)
    assert all(SCHEDULE in k.attributes for k in pointed.walk() if isinstance(k, tile.KernelOp))


def _random_point(space: dict, rng: random.Random) -> dict:
    return {name: rng.choice(choices) for name, choices in space.items()}


@pytest.mark.parametrize("cls", list(PROGRAMS))
def test_random_points_keep_meaning(cls: str, tmp_path: Path):
    rng = random.Random(7)
    nprng = np.random.default_rng(0)
    base = loop_module(PROGRAMS[cls])
    inputs = [nprng.standard_normal(tuple(a.type.get_shape())) for a in main_func(base).body.block.args]
    expected = exec_loop.run(base, inputs)
    sources = []
    for trial in range(4):
        module = base.clone()
        points = {}
        for k in kernels(module):
            points[k.sym_name.data] = _random_point(kernel_space(k), rng)
            k.attributes[POINT] = point_attr(points[k.sym_name.data])
        run_pipeline(module, kernel_schedule().replace(",fuse-launches", ""))
        outs = exec_kernel.run(module, inputs)
        for o, e in zip(outs, expected):
            np.testing.assert_allclose(o, e, rtol=1e-10, atol=1e-12, err_msg=f"{cls} at {points}")
        source = print_cuda(module)
        for name in re.findall(r"void (\w+)\(", source):  # one translation unit for all points
            source = source.replace(f"void {name}(", f"void {name}_p{trial}(")
        sources.append(source)
    if NVCC is not None:
        cu = tmp_path / "points.cu"
        cu.write_text("\n".join(sources))
        r = subprocess.run([NVCC, "-arch=sm_90", "-c", "-o", str(tmp_path / "p.o"), str(cu)],
                           capture_output=True, text=True, timeout=600)  # fmt: skip
        assert r.returncode == 0, r.stderr[-2000:]
