"""The race between the tensor cores and SIMT at their wave models (schedule.race_waves,
simt_wave_us): where it overturns the old models, where it declines, the SIMT wave model's
arithmetic, and that both picks keep the program's meaning on the executors."""

from __future__ import annotations


import pytest
from xdsl.passes import PassPipeline

from dpl.dialects import make_context, tile
from dpl.frontend import capture_expression
from dpl.frontend.check import relative_error
from dpl.interpreters import exec_kernel, exec_tile
from dpl.transforms import all_passes
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from dpl.transforms.tile import schedule
from dpl.transforms.tile.schedule_classes import MATMUL_TILES

from test_wave_model import dot_tile, scheduled

#: matmul_tt 397 x 128 x 2741 (sweep seed 61): the old models keep SIMT 64 x 64 split 10 (H200:
#: 24.7 us, 0.74x eager); the wave models race wgmma 64 x 64 split 8 (20 us) against it (27 us)
#: and take the tensor cores (16.1 us, 1.13x eager).
TT = "torch.randn(2741,397).T @ torch.randn(128,2741).T"
#: K = 67 (3 K steps): the race declines (schedule.RACE_MIN_STEPS), SIMT 128 x 128 stays.
SHORT_K = "torch.randn(6115,67) @ torch.randn(67,557)"
#: K = 64 (2 K steps, schedule.SIMT_MAX_STEPS): SIMT, though the old models rank wgmma first (H200:
#: 18.8 -> 12.7 us).
TWO_STEPS = "torch.randn(64,1472).T @ torch.randn(64,1201)"
#: A 1x1 convolution over NCHW, K = 64 (2 K steps): its output positions collapse into N, read
#: at `[%n floordiv 3136, %k, %n floordiv 56 mod 56, %n mod 56]`, which stage-inputs cannot stage
#: for the SIMT tile (blocks straddle images): priced UNSTAGED_TRIP times, and out of the
#: SIMT_MAX_STEPS rule, it goes to the tensor cores (H200, session 35, 32 x 64 x 56 x 56 -> 256:
#: SIMT 372 us, wgmma 64 x 64 117, 0.30 -> 0.64x eager).
CONV1X1 = "torch.nn.functional.conv2d(torch.randn(8,64,56,56), torch.randn(256,64,1,1))"


def test_the_race_takes_the_tensor_cores_where_the_wave_models_find_them_faster(pass_log, monkeypatch):
    assert dot_tile(scheduled(TT)) == (64, 64, 8)
    assert ("wgmma 64 x 64 (3xtf32, padded), split 8 rather than SIMT 64 x 64, split 10 (the wave models: "
            "20 us on the tensor cores, 27 us on SIMT)") in pass_log.text
    monkeypatch.setattr(schedule, "RACE_MARGIN", None)
    assert dot_tile(scheduled(TT)) is None


def test_the_race_declines_a_short_k(pass_log, monkeypatch):
    assert dot_tile(scheduled(SHORT_K)) is None
    assert "the wave models" not in pass_log.text
    monkeypatch.setattr(schedule, "RACE_MIN_STEPS", 0)  # raced, the tensor cores would take it
    assert dot_tile(scheduled(SHORT_K))[:2] == (128, 128)


def test_two_k_steps_leave_the_tensor_cores_to_simt(pass_log, monkeypatch):
    assert dot_tile(scheduled(TWO_STEPS)) is None
    assert "SIMT 128 x 128 rather than wgmma 128 x 128 (3xtf32, padded) (2 K steps: SIMT_MAX_STEPS)" in pass_log.text
    monkeypatch.setattr(schedule, "SIMT_MAX_STEPS", 0)  # the old models' pick
    assert dot_tile(scheduled(TWO_STEPS))[:2] == (128, 128)


def test_an_unstaged_simt_tile_is_priced_as_such(pass_log, monkeypatch):
    assert dot_tile(scheduled(CONV1X1)) == (64, 64, 1)
    assert "SIMT 128 x 128 (x unstaged):" in pass_log.text
    assert "SIMT_MAX_STEPS" not in pass_log.text
    monkeypatch.setattr(schedule, "unstaged", lambda t: [])  # priced as a staged tile: SIMT
    assert dot_tile(scheduled(CONV1X1)) is None


def test_simt_wave_us_is_its_docstring():
    """128 x 2048 x 192 on SIMT 64 x 64, split 3: 2 x 32 x 3 = 192 blocks of 256 threads, 2 on
    the busiest of 132 SMs, one wave of both; 2 K trips a block, aligned rows; the split's
    atomics over 128 x 2048 outputs."""
    module = scheduled("torch.randn(128,192) @ torch.randn(2048,192).T")
    t = next(t for t in module.walk() if isinstance(t, tile.TileOp))
    assert [e for _, e, k in t.axes if k == tile.AxisKind.BLOCK] == [3, 2, 32]
    rc = (4, 4)
    step = schedule.SIMT_WAVE_LONE_STEP_US[rc] + (2 - 1) * schedule.SIMT_WAVE_SHARED_STEP_US[rc]
    want = (schedule.SIMT_WAVE_LAUNCH_US + (schedule.SIMT_WAVE_BLOCK_US[rc] + 2 * step)
            + schedule.SIMT_WAVE_SPLIT_US * 2 * 128 * 2048 / 1e6)  # fmt: skip
    assert schedule.simt_wave_us(t, 132) == pytest.approx(want)
    assert MATMUL_TILES[0].at_once(256) >= 2


@pytest.mark.parametrize("race", [True, False])
def test_both_picks_keep_meaning(race: bool, monkeypatch):
    """397 x 128 x 2741 tt on the tensor cores (the race) and on SIMT (the old models): the tile
    and kernel executors against the program (random inputs)."""
    if not race:
        monkeypatch.setattr(schedule, "RACE_MARGIN", None)
    prog = capture_expression(TT)
    module = prog.module.clone()
    run_pipeline(module, IR_PIPELINES["loop"] + ",split-nests,schedule")
    assert (dot_tile(module) is not None) == race
    assert relative_error(prog, lambda _m, a: exec_tile.run(module, a)) < 1e-5
    kernels = module.clone()
    PassPipeline.parse_spec(all_passes(), "materialize-mma,materialize").apply(make_context(), kernels)
    assert relative_error(prog, lambda _m, a: exec_kernel.run(kernels, a), seed=3) < 1e-5
