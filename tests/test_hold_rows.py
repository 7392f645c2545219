"""hold-rows: a row read by several strided loops is held in registers; meaning kept.

The lit inputs (test/lit/tile/hold-rows.mlir) run on the tile executor before and after the pass
on random inputs (negative, odd-sized rows: 37 on 16 lanes, 3 trips of which the last is part
past the row); softmax and LayerNorm rows held by a warp each run through the whole pipeline on
the kernel executor against float64, and their CUDA compiles with no local memory.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from xdsl.context import Context
from xdsl.parser import Parser

from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import tile
from dpl.frontend import capture
from dpl.interpreters import exec_kernel
from dpl.transforms.pipelines import IR_PIPELINES, make_context, run_pipeline
from dpl.transforms.tile.hold_rows import HoldRows

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import lit_cases, same_on_tile_executor  # noqa: E402
from test_norm_schedule import ChannelRMSNorm, SoftmaxLast, assert_one_kernel_parity_on_gpu  # noqa: E402

NVCC = shutil.which("nvcc")
LIT = Path(__file__).parent.parent / "test" / "lit" / "tile" / "hold-rows.mlir"


def _rel(a: np.ndarray, ref: np.ndarray) -> float:
    return float(np.linalg.norm(a - ref) / np.linalg.norm(ref))


@pytest.mark.parametrize("index", range(8))
def test_hold_rows_keeps_the_meaning_of_the_lit_inputs(index):
    ctx: Context = make_context()
    before = Parser(ctx, lit_cases(LIT)[index]).parse_module()
    after = before.clone()
    HoldRows().apply(ctx, after)
    after.verify()
    assert any(isinstance(o, tile.HoldOp) for o in after.walk()) == (index not in (2, 5))
    same_on_tile_executor(before, after, index, 1e-6)


def _layer_norm(n: int) -> torch.nn.Module:
    mod = torch.nn.LayerNorm(n)
    with torch.no_grad():
        mod.weight.normal_()
        mod.bias.normal_()
    return mod


# rows packed a warp each: 389 (13 trips, the last part past the row), 250 (8), 96 (3, exact)
CASES = [(SoftmaxLast, (1100, 389)), (lambda: _layer_norm(250), (4000, 250)), (SoftmaxLast, (3, 700, 96))]


@pytest.mark.parametrize("make,shape", CASES)
def test_held_rows_keep_their_meaning_through_the_pipeline(make, shape):
    mod = make()
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(7)) * 4 - 1
    tiled = capture(mod, x).module.clone()
    run_pipeline(tiled, IR_PIPELINES["tile"])
    assert [o.count for o in tiled.walk() if isinstance(o, tile.HoldOp)] == [-(-shape[-1] // 32)]
    module = capture(mod, x).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"])
    _assert_matches_float64(module, mod, x)


def _assert_matches_float64(module, mod: torch.nn.Module, x: torch.Tensor) -> None:
    """The kernel IR `module` of `mod(x)` on the kernel executor, within 1e-6 of float64."""
    by_name = {"x": x, "input": x} | {f"p_{n}": p for n, p in mod.named_parameters()}
    names = [a.name_hint for a in next(o for o in module.walk() if o.name == "func.func").args]
    out = exec_kernel.run(module, [by_name[n].detach().double().numpy().copy() for n in names])[0]
    ref = mod.double()(x.double()).detach().numpy()
    assert not np.isnan(out).any()
    assert _rel(out, ref) < 1e-6


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
@pytest.mark.parametrize("build,count", [
    (lambda: (SoftmaxLast(), torch.randn(4096, 733)), 23),  # a row, 23 of 733 a lane
    # the sweep's RMSNorm over the 256 channels of 32 x 256 x 56 x 56: a column, 8 lanes, 32 trips
    (lambda: (ChannelRMSNorm(256).to("meta"), torch.empty(32, 256, 56, 56, device="meta")), 32),
])  # fmt: skip
def test_held_cuda_compiles_into_registers(build, count, tmp_path):
    """The held elements are a register array of the thread's; no local memory."""
    mod, x = build()
    module = capture(mod, x).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"])
    source = print_cuda(module)
    assert f"float x_reg[{count}];" in source
    cu = tmp_path / "held.cu"
    cu.write_text(source)
    result = subprocess.run([NVCC, "-arch=sm_90", "-c", "-o", str(tmp_path / "h.o"), str(cu), "-Xptxas", "-v"],
                            capture_output=True, text=True, timeout=300)  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "0 bytes stack frame" in result.stderr, result.stderr


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("make,shape", [*CASES, (SoftmaxLast, (1101, 733)), (SoftmaxLast, (8, 281, 15, 8)),
                                        (lambda: ChannelRMSNorm(199), (8, 199, 33, 65)),
                                        (lambda: ChannelRMSNorm(256), (32, 256, 56, 56))])  # held columns
def test_held_rows_parity_on_gpu(make, shape):
    """One kernel; relative error against float64 at most 2x eager's (or under 2e-6)."""
    assert_one_kernel_parity_on_gpu(make(), torch.randn(*shape) * 4 - 1)


# a row of its own block (row-trips: 128 lanes for 1117, 9 trips, the last part past the row;
# 1500: 128 lanes, 12 trips, the last for 92 of them): held, read once
BLOCK_ROWS = [(SoftmaxLast, (20, 1117)), (lambda: _layer_norm(1500), (17, 1500))]


@pytest.mark.parametrize("make,shape", BLOCK_ROWS)
def test_a_block_row_is_held_and_keeps_its_meaning(make, shape, pass_log):
    """Rows enough for 4 an SM (`schedule{sms=4}`: 16) get the lanes that pass over the row in
    at most 12 trips and hold it in registers before anything is staged; kernel executor
    against float64."""
    mod = make()
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(11)) * 4 - 1
    module = capture(mod, x).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"].replace("schedule,", "schedule{sms=4},"))
    assert "held in registers (hold-rows)" in pass_log.text
    (kfunc,) = [op for op in module.walk() if op.name == "kernel.func"]
    assert kfunc.num_threads == 128 and kfunc.smem.data == 0
    _assert_matches_float64(module, mod, x)


def test_few_block_rows_are_staged(pass_log):
    """Fewer rows than 4 an SM keep 256 lanes and stage the row (nothing held)."""
    x = torch.randn(15, 1117, generator=torch.Generator().manual_seed(12))
    module = capture(SoftmaxLast(), x).module.clone()
    run_pipeline(module, IR_PIPELINES["tile"].replace("split-nests,schedule", "split-nests,schedule{sms=4}"))
    assert "fewer than 4 rows an SM: lanes by block size, staged" in pass_log.text
    assert not any(isinstance(o, tile.HoldOp) for o in module.walk())
    assert any(isinstance(o, tile.StageOp) for o in module.walk())


@pytest.mark.parametrize("c,shape,trips", [(199, (2, 199, 6, 33), 25), (256, (1, 256, 7, 40), 32), (37, (2, 37, 9, 13), 0)])
def test_a_held_column_keeps_its_meaning(c, shape, trips, pass_log):
    """RMSNorm over the channels of (batch, channels, h, w), columns enough for 4 an SM
    (`schedule{sms=4}`): a column of 24 trips or more is held along dim 1 (199 channels on 8
    lanes: the last trip part past the column, masked there) and the output loop reads the
    registers; 37 channels (5 trips) are not held (column-trips). Kernel executor against
    float64."""
    mod = ChannelRMSNorm(c)
    x = torch.randn(*shape, generator=torch.Generator().manual_seed(13)) * 4 - 1
    pipeline = IR_PIPELINES["kernel"].replace("schedule,", "schedule{sms=4},")
    tiled = capture(mod, x).module.clone()
    run_pipeline(tiled, IR_PIPELINES["tile"].replace("split-nests,schedule", "split-nests,schedule{sms=4}"))
    assert [(o.count, o.held_dim) for o in tiled.walk() if isinstance(o, tile.HoldOp)] == ([(trips, 1)] if trips else [])
    module = capture(mod, x).module.clone()
    run_pipeline(module, pipeline)
    assert ("x held in" in pass_log.text) == bool(trips)
    _assert_matches_float64(module, mod, x)



def test_a_channel_weight_of_a_padded_row_is_not_masked(pass_log):
    """GroupNorm(C, C) (wav2vec2's feature encoder: GroupNorm(512, 512) over 1001 or 6399
    positions) reads its affine weight and bias per channel at an index list that carries the
    row's padded index unread by the map: rows of 37 on 32 lanes run past the row, but those
    loads stay unmasked (an empty `tile.masked` failed the verifier). Rows enough for 4 an SM
    (`schedule{sms=4}`); kernel executor against float64."""
    mod = torch.nn.GroupNorm(8, 8)
    with torch.no_grad():
        mod.weight.normal_()
        mod.bias.normal_()
    x = torch.randn(2, 8, 37, generator=torch.Generator().manual_seed(14)) * 4 - 1
    module = capture(mod, x).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"].replace("schedule,", "schedule{sms=4},"))
    assert "held in registers (hold-rows)" in pass_log.text
    _assert_matches_float64(module, mod, x)
