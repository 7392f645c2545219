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
from dpl.dialects import kernel as K
from dpl.dialects import loop, make_context, mma, tile
from dpl.driver.tune import program_kernels
from dpl.driver.tuned import kernel_key
from dpl.frontend import capture_expression
from dpl.interpreters import exec_kernel, exec_loop
from dpl.interpreters.exec_loop import main_func
from dpl.transforms import all_passes
from dpl.transforms.loop.repack_operands import declines as repack_declines
from dpl.transforms.loop.repack_operands import repack
from dpl.transforms.loop.split_epilogue import declines as split_declines
from dpl.transforms.loop.split_epilogue import split_epilogue
from dpl.transforms.pipelines import IR_PIPELINES, kernel_schedule, run_pipeline
from dpl.transforms.tile.schedule import (
    POINT,
    REPACK_OPERANDS,
    SCHEDULE,
    SPLIT_EPILOGUE,
    TENSOR_CORES,
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


def loop_module(expr: str, dtype: torch.dtype = torch.float64):
    module = capture_expression(expr, dtype=dtype).module
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
    assert set(class_space("row reduction")) == {"block_size", "row_trips", "min_reuse", "max_trips", "max_extent"}
    # blockify-launch's row-trips is declared for row kernels only (pointwise and matmul run it too)
    assert "row_trips" not in class_space("pointwise") and "row_trips" not in mm
    # the split of the epilogue is a dimension only where there is an epilogue to split
    (plain,) = kernels(loop_module("torch.randn(16,64) @ torch.randn(64,32)"))
    assert SPLIT_EPILOGUE not in kernel_space(plain)


def test_bad_points_are_one_line_errors():
    with pytest.raises(ValueError, match="'row_trips' is not a tunable option of a pointwise kernel"):
        point_spec("pointwise", {"row_trips": 8}, "sm_90", 132)
    with pytest.raises(ValueError, match="'width' is not a tunable option of a matmul kernel"):
        point_spec("matmul", {"width": 2}, "sm_90", 132)
    with pytest.raises(ValueError, match="pipeline-k-outer: option depth must be at least 2, got 1"):
        point_spec("matmul", {"depth": 1}, "sm_90", 132)
    (k,) = kernels(module := loop_module("torch.randn(24,64) @ torch.randn(64,40)"))  # aligned, no epilogue
    for key in (REPACK_OPERANDS, SPLIT_EPILOGUE):
        k.attributes[POINT] = point_attr({key: True})
        with pytest.raises(ValueError, match=rf"schedule: @k_\w+: tile.point: {key}=true does not apply: "):
            Schedule().apply(make_context(), module.clone())


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


@pytest.mark.parametrize("expr,row_trips", [
    ("torch.softmax(torch.randn(600,1117), -1)", 12),  # held by row-trips' lanes
    ("torch.softmax(torch.randn(600,2048), -1)", 0),  # f32 rows staged by float4s
])
def test_default_point_of_a_block_row_is_what_the_heuristics_do(expr: str, row_trips: int):
    ctx = make_context()
    heuristic = loop_module(expr, torch.float32)
    pointed = heuristic.clone()
    Schedule().apply(ctx, heuristic)
    (k,) = kernels(pointed)
    point = Schedule().default_point(ctx, k)
    assert point["row_trips"] == row_trips and point["max_trips"] == (32 if row_trips else 0)
    k.attributes[POINT] = point_attr(point)
    Schedule().apply(ctx, pointed)
    assert _strip(pointed) == _strip(heuristic)


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


# ------------------------------------------------------------------------------------------------
# The tensor-core dimension: `tensor_cores` (and tensorize-matmul's bm, bn) where they apply

#: An f32 linear whose shape suits the tensor cores (M, N >= 64, K >= 128).
TC_PROGRAM = "torch.nn.functional.linear(torch.randn(64,128), torch.randn(64,128), torch.randn(64))"
#: 1024 x 1024 x 512: enough blocks for the tensor cores to win (at 64 x 64 x 128 one block runs
#: alone, and the launch's fixed cost, schedule_mma.BLOCK_US, leaves it to SIMT).
TC_FILLED = "torch.nn.functional.linear(torch.randn(1024,512), torch.randn(1024,512), torch.randn(1024))"


def tc_module():
    return loop_module(TC_PROGRAM, torch.float32)


def test_tensor_cores_are_a_dimension_where_they_apply():
    (k,) = kernels(tc_module())
    space = kernel_space(k)
    assert space[TENSOR_CORES] == (False, True) and space["bm"] == (64, 128, 256) and "bn" in space
    assert "rows" in space and "splits" in space  # the SIMT dimensions stay: the tuner weighs both
    for precision, target in (("ieee", "sm_90"), ("auto", "sm_75")):  # SIMT only: no tensor cores
        assert not {TENSOR_CORES, "bm", "bn"} & set(kernel_space(k, precision, target))
    (small,) = kernels(loop_module(PROGRAMS["matmul"]))  # f64 and tiny: SIMT only
    assert TENSOR_CORES not in kernel_space(small) and "bm" not in class_space("pointwise")


@pytest.mark.parametrize("precision", ["auto", "tf32", "ieee"])
def test_default_point_on_tensor_cores_is_what_the_heuristics_do(precision: str):
    ctx = make_context()
    heuristic = loop_module(TC_FILLED, torch.float32)  # the tensor cores' pick at auto and tf32
    pointed = heuristic.clone()
    schedule = Schedule(precision=precision)
    schedule.apply(ctx, heuristic)
    (k,) = kernels(pointed)
    point = schedule.default_point(ctx, k)
    assert point.get(TENSOR_CORES, False) is (precision != "ieee")
    k.attributes[POINT] = point_attr(point)
    schedule.apply(ctx, pointed)
    assert _strip(pointed) == _strip(heuristic)
    assert any(isinstance(o, mma.DotOp) for o in pointed.walk()) is (precision != "ieee")


def test_default_point_of_a_tile_kept_unsplit_is_what_the_heuristics_do():
    """64 x 64 x 128 at ieee: split-matmul-k splits K 4 ways for the 32 x 32 tile, the schedule
    models the tile unsplit faster and keeps that, and the default point says so (splits = 1)."""
    ctx = make_context()
    heuristic = tc_module()
    pointed = heuristic.clone()
    schedule = Schedule(precision="ieee")
    schedule.apply(ctx, heuristic)
    (k,) = kernels(pointed)
    point = schedule.default_point(ctx, k)
    assert (point["rows"], point["cols"], point["splits"]) == (2, 2, 1)
    k.attributes[POINT] = point_attr(point)
    schedule.apply(ctx, pointed)
    assert _strip(pointed) == _strip(heuristic)
    assert "%ks" not in str(heuristic) and "tile.atomic" not in str(heuristic)


def test_default_point_of_a_displaced_split_is_what_the_heuristics_do():
    """1117 x 19 x 347 tn: split-matmul-k's sparse split of the 32 x 32 tile displaces a split of
    3 (11 K trips padded to 12), which the schedule weighs too and keeps; the default point says
    so (splits = 3, padded as the model's pick was)."""
    ctx = make_context()
    heuristic = loop_module("torch.randn(347,1117).T @ torch.randn(347,19)", torch.float32)
    pointed = heuristic.clone()
    Schedule().apply(ctx, heuristic)
    (k,) = kernels(pointed)
    point = Schedule().default_point(ctx, k)
    assert (point["rows"], point["cols"], point["splits"]) == (2, 2, 3)
    k.attributes[POINT] = point_attr(point)
    Schedule().apply(ctx, pointed)
    assert _strip(pointed) == _strip(heuristic)
    assert "%ks : 3 = block" in str(heuristic)


def test_default_point_of_a_batched_tensor_core_tile_kept_unsplit_is_what_the_heuristics_do():
    """3 x 1024x1024x4096 bmm: split-matmul-k would split K for wgmma 128 x 128, which leaves a
    fourth block axis, so the schedule keeps the tile unsplit; the default point says so (splits
    = 1), and a point with the model's split (splits = 0) is kept unsplit alike, not a
    materialize-mma error."""
    ctx = make_context()
    heuristic = loop_module("torch.bmm(torch.randn(3,1024,4096), torch.randn(3,4096,1024))", torch.float32)
    pointed, auto = heuristic.clone(), heuristic.clone()
    schedule = Schedule()
    schedule.apply(ctx, heuristic)
    (k,) = kernels(pointed)
    point = schedule.default_point(ctx, k)
    assert (point[TENSOR_CORES], point["bm"], point["bn"], point["splits"]) == (True, 128, 128, 1)
    k.attributes[POINT] = point_attr(point)
    schedule.apply(ctx, pointed)
    assert _strip(pointed) == _strip(heuristic)
    (k,) = kernels(auto)
    k.attributes[POINT] = point_attr({**point, "splits": 0})
    schedule.apply(ctx, auto)
    assert "%ks" not in str(auto) and any(isinstance(o, mma.DotOp) for o in auto.walk())


def test_default_point_of_a_repacked_matmul_is_what_the_heuristics_do():
    """linear + ReLU 4096 x 201 -> 256: rows of 201 floats, which the schedule copies aligned
    first (repack-operands); the default point says so (repack = true) and scheduling at it gives
    the heuristics' IR, copies and all. Aligned operands have no such dimension."""
    ctx = make_context()
    expr = "torch.nn.functional.relu(torch.nn.functional.linear(torch.randn(4096,201), torch.randn(256,201)))"
    heuristic = loop_module(expr, torch.float32)
    pointed = heuristic.clone()
    schedule = Schedule()
    schedule.apply(ctx, heuristic)
    (k,) = kernels(pointed)
    assert kernel_space(k)[REPACK_OPERANDS] == (False, True)
    point = schedule.default_point(ctx, k)
    assert point[REPACK_OPERANDS] is True
    k.attributes[POINT] = point_attr(point)
    schedule.apply(ctx, pointed)
    assert _strip(pointed) == _strip(heuristic)
    assert len([o for o in pointed.walk() if isinstance(o, tile.KernelOp)]) == 3  # two copies, the matmul
    (aligned,) = kernels(tc_module())
    assert REPACK_OPERANDS not in kernel_space(aligned)


def test_split_epilogue_and_repack_commute():
    """A point says whether the epilogue is split off and whether the operands are copied aligned,
    not in which order: the heuristics split then repack (an "epilogue split off" choice whose
    matmul repacks) or repack then split (an "operands repacked" choice whose matmul splits), and
    schedule_point replays the copies first. The two orders must give the same kernels: only the
    copies' names (which carry the kernel's name when they go first) may differ."""
    expr = "torch.nn.functional.gelu(torch.nn.functional.linear(torch.randn(301,133), torch.randn(77,133)) + 1.0)"
    texts = []
    for first, then in ((split_epilogue, repack), (repack, split_epilogue)):
        module = loop_module(expr, torch.float32)
        (k,) = kernels(module)
        assert split_declines(k) is None and repack_declines(k) is None
        first(k)
        declines = repack_declines if then is repack else split_declines
        (rest,) = [p for p in kernels(module) if declines(p) is None]
        then(rest)
        texts.append(sorted(str(p).replace("_acc_pad", "_pad") for p in kernels(module)))
    assert len(texts[0]) == 4  # two copies, the matmul, the epilogue
    assert texts[0] == texts[1]


@pytest.mark.parametrize("point", [
    {REPACK_OPERANDS: True, "rows": 2, "cols": 2},
    {REPACK_OPERANDS: True, "rows": 4, "cols": 2, "splits": 1},
    {REPACK_OPERANDS: False, "rows": 2, "cols": 4, "k_tile": 16},
])  # fmt: skip
def test_repack_points_keep_meaning(point: dict):
    """40 x 67 @ 67 x 33 (rows of 67 and 33 floats) at points with and without the copies, on
    the kernel executor against the loop IR."""
    module, inputs, expected = scheduled_at(loop_module("torch.randn(40,67) @ torch.randn(67,33)", torch.float32),
                                            point, seed=5)  # fmt: skip
    copies = [o for o in module.walk() if isinstance(o, K.KernelFuncOp) and "_pad_" in o.sym_name.data]
    assert bool(copies) is point[REPACK_OPERANDS]
    outs = exec_kernel.run(module, inputs)
    (ref,) = expected
    assert np.linalg.norm(outs[0] - ref) / np.linalg.norm(ref) < 1e-5, point


def scheduled_at(base, point: dict, seed: int):
    """(`base`'s one kernel scheduled at `point` down to kernel IR, random f32 inputs, the loop
    IR's outputs on them in f64)."""
    nprng = np.random.default_rng(seed)
    inputs = [nprng.standard_normal(tuple(a.type.get_shape())).astype(np.float32)
              for a in main_func(base).body.block.args]  # fmt: skip
    expected = exec_loop.run(base.clone(), [x.astype(np.float64) for x in inputs])
    module = base.clone()
    (k,) = kernels(module)
    k.attributes[POINT] = point_attr(point)
    run_pipeline(module, kernel_schedule().replace(",fuse-launches", ""))
    return module, inputs, expected


@pytest.mark.parametrize("point", [
    {TENSOR_CORES: True, "bm": 64, "bn": 32, "splits": 2},
    {TENSOR_CORES: True, "bm": 64, "bn": 64},
    {TENSOR_CORES: False, "rows": 2, "cols": 4, "k_tile": 16},
])  # fmt: skip
def test_tensor_core_points_keep_meaning(point: dict):
    module, inputs, expected = scheduled_at(tc_module(), point, seed=3)
    assert ("mma" in str(module)) is point[TENSOR_CORES]
    (out,) = exec_kernel.run(module, inputs)
    (ref,) = expected
    assert np.linalg.norm(out - ref) / np.linalg.norm(ref) < 1e-5, point


def test_tensor_core_points_the_passes_reject_are_one_line_errors():
    ctx = make_context()
    f64 = loop_module(PROGRAMS["matmul"])  # the tensor cores take f32 (a ragged shape is padded)
    for precision, point, message, base in (
        ("auto", {TENSOR_CORES: True, "bm": 256}, "tensorize-matmul declined the kernel", f64),
        ("ieee", {TENSOR_CORES: True}, "tensor_cores=true needs tensor cores: precision ieee", None),
        ("auto", {TENSOR_CORES: True, "bn": 300}, r"tensorize-matmul: option bn must be in \[8, 256\], got 300", None),
    ):
        module = tc_module() if base is None else base.clone()
        (k,) = kernels(module)
        k.attributes[POINT] = point_attr(point)
        with pytest.raises(ValueError, match=message):
            try:
                Schedule(precision=precision).apply(ctx, module)
            except ValueError as e:
                assert "\n" not in str(e)
                raise


def test_tuning_keys_depend_on_the_precision():
    (k,) = kernels(tc_module())
    keys = {p: kernel_key(k, Schedule(precision=p)) for p in ("auto", "3xtf32", "tf32", "ieee")}
    assert keys["auto"] == keys["3xtf32"] and len(set(keys.values())) == 3


def test_the_search_proposes_a_schedule_once_whatever_its_unused_options():
    from dpl.driver.tune import program_kernels
    from dpl.driver.tune_cache import canonical
    from dpl.driver.tune_search import Space, make_search

    (k,) = program_kernels(capture_expression(TC_PROGRAM).module)
    search = make_search("evolve", Space(k.space), k.seeds, 0, k.normalize)
    points = search.propose(40)
    assert len({canonical(p) for p in points}) == 40
    assert {p[TENSOR_CORES] for p in points} == {False, True}
    for p in points:  # a tensor-core point keeps the SIMT options at the default's, and back
        unused = ("rows", "k_tile", "pad", "depth") if p[TENSOR_CORES] else ("bm", "bn")
        assert all(p[d] == k.default[d] for d in unused), p


# ------------------------------------------------------------------------------------------------
# Flash attention: tile-attention's rows (query rows per block) and tile (keys per step)

#: A causal f32 attention of odd lengths, head dim 24 (the flash kernel takes f32 only).
FLASH_PROGRAM = ("torch.nn.functional.scaled_dot_product_attention(torch.randn(1,2,37,24), "
                 "torch.randn(1,2,37,24), torch.randn(1,2,37,24), is_causal=True)")  # fmt: skip


def flash_module():
    return loop_module(FLASH_PROGRAM, torch.float32)


def test_flash_attention_is_tunable():
    (k,) = kernels(flash_module())
    space = kernel_space(k)
    assert space == {"rows": (32, 64, 128), "tile": (16, 32, 64, 128), "splits": (1, 2, 4, 8, 16)}
    assert Schedule().default_point(make_context(), k) == {"rows": 64, "tile": 64, "splits": 1}
    (tuned,) = program_kernels(capture_expression(FLASH_PROGRAM, dtype=torch.float32).module)
    assert tuned.cls == "flash attention" and len(tuned.seeds) == 4  # the default and 3 neighbours
    assert all(v in space[name] for seed in tuned.seeds for name, v in seed.items())


def test_flash_default_point_is_what_the_heuristics_do():
    ctx = make_context()
    heuristic = flash_module()
    pointed = heuristic.clone()
    Schedule().apply(ctx, heuristic)
    (k,) = kernels(pointed)
    k.attributes[POINT] = point_attr(Schedule().default_point(ctx, k))
    Schedule().apply(ctx, pointed)
    assert _strip(pointed) == _strip(heuristic)


@pytest.mark.parametrize("point", [{"rows": 32, "tile": 16}, {"rows": 128, "tile": 32}, {"tile": 128},
                                   {"rows": 32, "tile": 8 * 2, "splits": 2}, {"tile": 16, "splits": 16}])  # fmt: skip
def test_flash_points_keep_meaning(point: dict, tmp_path: Path):
    """A point's kernels (a split over the keys: the flash kernel and its combine) against the loop
    IR on the CPU executors, and through nvcc."""
    module, inputs, expected = scheduled_at(flash_module(), point, seed=5)
    funcs = [o for o in module.walk() if o.name == "kernel.func"]
    assert len(funcs) == (2 if point.get("splits", 1) > 1 else 1)
    (out,) = exec_kernel.run(module, [x.astype(np.float64) for x in inputs])
    rel = np.linalg.norm(out - expected[0]) / np.linalg.norm(expected[0])
    assert rel < 1e-6, (point, rel)
    if NVCC is not None:
        cu = tmp_path / "flash.cu"
        source = print_cuda(module)
        cu.write_text(source)
        # a point of 64 query rows and key tiles of 32 or more runs on wgmma (sm_90a)
        arch = "-gencode=arch=compute_90a,code=sm_90a" if "wgmma" in source else "-arch=sm_80"
        r = subprocess.run([NVCC, arch, "-c", "-o", str(tmp_path / "f.o"), str(cu)],
                           capture_output=True, text=True, timeout=600)  # fmt: skip
        assert r.returncode == 0, r.stderr[-2000:]


def test_the_tensor_core_seeds_hold_every_tile_of_the_model():
    """The search measures each wgmma block tile the schedule weighs (64 x 64 among them: the
    wave model's pick where 128 x 128 blocks run alone, bench/results/session25) before it
    looks around."""
    from dpl.driver.tune import program_kernels

    (k,) = program_kernels(capture_expression(TC_PROGRAM).module)
    tiles = {(s["bm"], s["bn"]) for s in k.seeds if s.get(TENSOR_CORES)}
    assert {(128, 128), (64, 128), (64, 64), (128, 256)} <= tiles
