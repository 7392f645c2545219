"""The wave model's pick among tensor-core tiles (schedule_mma.wave_us, wave_pick): where it
moves a matmul, where it declines, and that the tile it picks keeps the program's meaning."""

from __future__ import annotations

import math

import pytest
from xdsl.passes import PassPipeline

from dpl.dialects import make_context, mma, tile
from dpl.frontend import capture_expression
from dpl.frontend.check import relative_error
from dpl.interpreters import exec_kernel, exec_tile
from dpl.transforms import all_passes
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from dpl.transforms.tile import schedule, schedule_mma
from dpl.transforms.tile.schedule_mma import wave_pick, wave_us
from dpl.transforms.tile.target import arch_smem

LINEAR = "torch.nn.functional.linear(torch.randn(128,704), torch.randn(1152,704))"


def scheduled(expr: str, schedule: str = "schedule"):
    module = capture_expression(expr).module
    run_pipeline(module, IR_PIPELINES["loop"] + f",split-nests,{schedule}")
    return module


def dot_tile(module):
    """(bm, bn, splits) of the one tensorized tile of `module` (None: SIMT)."""
    for t in module.walk():
        if isinstance(t, tile.TileOp):
            dot = next((o for o in t.walk() if isinstance(o, mma.DotOp)), None)
            if dot is not None:
                splits = next((e for v, e, _ in t.axes if v.name_hint == "ks"), 1)
                return dot.a.owner.rows, dot.b.owner.rows, splits
    return None


def tile_of(expr: str, bm: int, bn: int):
    """The tensorized tile of `expr` scheduled on wgmma bm x bn (split-matmul-k automatic)."""
    choice = schedule_mma.MmaChoice("wgmma", bm, bn, "3xtf32")
    module = capture_expression(expr).module
    run_pipeline(module, IR_PIPELINES["loop"] + ",split-nests")
    PassPipeline.parse_spec(all_passes(), choice.spec(132, arch_smem("sm_90"))).apply(make_context(), module)
    return next(t for t in module.walk() if isinstance(t, tile.TileOp) and any(isinstance(o, mma.DotOp) for o in t.walk()))


def test_the_wave_model_moves_lone_128x128_blocks_to_64x64(pass_log):
    """128 x 1152 x 704: the old model ties 18 lone blocks of 128 x 128 (split 2) with 72 of
    64 x 64 at 22 us; the wave model finds 128 x 128 over 1.1x slower (measured on the H200
    28.1 against 17.5 us), so 64 x 64 split 2, and `-v` says so."""
    assert dot_tile(scheduled(LINEAR)) == (64, 64, 2)
    assert "wgmma 64 x 64 (3xtf32), split 2 rather than wgmma 128 x 128 (3xtf32), split 2 (the wave model)" in pass_log.text
    big, small = tile_of(LINEAR, 128, 128), tile_of(LINEAR, 64, 64)
    assert wave_us(big, 132, arch_smem("sm_90")) > schedule_mma.WAVE_MARGIN * wave_us(small, 132, arch_smem("sm_90"))


def test_the_old_pick_stays_within_the_margin(pass_log):
    """115 x 4567 x 827, w stored [K, N]: the wave model's pick is within 1.1x of the old model's
    128 x 128 split 2, which stays (measured 41.3 us against 53.8 for 64 x 64)."""
    assert dot_tile(scheduled("torch.randn(115,827) @ torch.randn(827,4567)")) == (128, 128, 2)
    assert "(the wave model)" not in pass_log.text


def test_large_matmuls_keep_128x128():
    """2048 x 2048 x 2048: 256 blocks of 128 x 128, the tile both models pick."""
    assert dot_tile(scheduled("torch.randn(2048,2048) @ torch.randn(2048,2048)"))[:2] == (128, 128)


def test_wave_model_only_models_wgmma_at_3xtf32():
    """mma.sync tiles (sm_80, the tensor cores pinned: the old models put this one on SIMT) and
    tf32 are not what it was fitted on: None, and wave_pick keeps the old pick."""
    sync = scheduled(LINEAR, "schedule{target=sm_80 tensor-cores=true}")
    (t,) = [t for t in sync.walk() if isinstance(t, tile.TileOp) and any(isinstance(o, mma.DotOp) for o in t.walk())]
    assert wave_us(t, 108, arch_smem("sm_80")) is None
    tf32 = scheduled(LINEAR, "schedule{precision=tf32}")
    (t,) = [t for t in tf32.walk() if isinstance(t, tile.TileOp) and any(isinstance(o, mma.DotOp) for o in t.walk())]
    assert wave_us(t, 132, arch_smem("sm_90")) is None
    assert wave_pick([None, t], 1, 132, arch_smem("sm_90")) == 1


@pytest.mark.parametrize("margin", [math.inf, 1.1])
def test_the_picked_tile_keeps_meaning(margin: float, monkeypatch):
    """Both picks of 128 x 1152 x 704 (128 x 128 split 2 by the old model, 64 x 64 split 2 by the
    wave model) compute the linear on the tile and kernel executors (random inputs). The old pick
    is the old models' alone (schedule.RACE_MARGIN None: the wave models' race against SIMT
    would take SIMT from 128 x 128), on the tensor cores (`tensor-cores=true`: the old models
    would take SIMT 64 x 64 split 11, a sparse split, from both)."""
    monkeypatch.setattr(schedule_mma, "WAVE_MARGIN", margin)
    if margin == math.inf:
        monkeypatch.setattr(schedule, "RACE_MARGIN", None)
    prog = capture_expression(LINEAR)
    module = prog.module.clone()
    run_pipeline(module, IR_PIPELINES["loop"] + ",split-nests,schedule{tensor-cores=true}")
    assert dot_tile(module) == ((128, 128, 2) if margin == math.inf else (64, 64, 2))
    assert relative_error(prog, lambda _m, a: exec_tile.run(module, a)) < 1e-5
    kernels = module.clone()
    PassPipeline.parse_spec(all_passes(), "materialize-mma,materialize").apply(make_context(), kernels)
    assert relative_error(prog, lambda _m, a: exec_kernel.run(kernels, a), seed=3) < 1e-5
