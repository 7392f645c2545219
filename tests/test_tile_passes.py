"""Every tile-level pass keeps meaning: run each lit input of test/lit/tile before (loop or tile
executor) and after (tile executor) its pass on fresh random float64 inputs and compare."""

from pathlib import Path

import numpy as np
import pytest
from xdsl.passes import PassPipeline

from dpl.interpreters import exec_tile
from dpl.interpreters.exec_loop import main_func
from dpl.dialects import make_context
from dpl.dialects.parsing import parse_module
from dpl.transforms.pipelines import normalize_pipeline
from dpl.transforms import all_passes

LIT = Path(__file__).parent.parent / "test" / "lit" / "tile"
CASES = sorted(p for p in LIT.glob("*.mlir") if "--pass-pipeline=" in p.read_text())
RMS = LIT / "stage-inputs.mlir"
# Passes that change the arithmetic (tensor cores in 3xTF32): ‖after − before‖/‖before‖ bound.
NORM_TOLERANCE = {"tensorize-matmul": 1e-5, "tile-attention": 1e-5}
# f32 cases (schedule-mma's SIMT fallback): the schedule reorders the sums, which f32 rounds.
F32_REORDERED = 1e-6


def pipeline_of(path: Path) -> str:
    run_line = next(line for line in path.read_text().splitlines() if "RUN:" in line)
    return normalize_pipeline(run_line.split("--pass-pipeline=")[1].split("'")[1])


#: A case whose loop nests run more multiply-adds than this is checked by its lit test and by the
#: schedule tests (tests/test_tile_schedule_matmul.py), not run here: the NumPy executors hold
#: every thread's values at once, and schedule-matmul-tiles' 2048 x 2048 x 256 matmul alone took
#: 12 GB and 37 s.
MAX_TRIPS = 1 << 26


def trips(module) -> int:
    """The iterations of the innermost bodies of every loop nest in `module` (an upper bound on
    the executor's work)."""
    from dpl.dialects import loop

    def nest(op, outer: int) -> int:
        total = 0
        for region in op.regions:
            for block in region.blocks:
                for inner in block.ops:
                    n = outer * inner.extent.data if isinstance(inner, loop.ForOp) else outer
                    total += max(nest(inner, n), n if isinstance(inner, loop.ForOp) else 0)
        return total

    return nest(module, 1)


def random_inputs(module, rng):
    return [rng.standard_normal(tuple(a.type.get_shape())) for a in main_func(module).body.block.args]


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_pass_keeps_meaning(path: Path):
    rng = np.random.default_rng(1)
    for text in path.read_text().split("// -----"):
        ctx = make_context()
        module = parse_module(ctx, text, path.name)
        if trips(module) > MAX_TRIPS or not main_func(module).function_type.outputs:
            continue  # too large for the executors, or nothing to compare (set-target's cases)
        inputs = random_inputs(module, rng)
        before = exec_tile.run(module, inputs)
        after_module = module.clone()
        PassPipeline.parse_spec(all_passes(), pipeline_of(path)).apply(ctx, after_module)
        after_module.verify()
        after = exec_tile.run(after_module, inputs)
        assert len(before) == len(after) >= 1
        norm_tol = next((t for name, t in NORM_TOLERANCE.items() if name in pipeline_of(path)), None)
        if any(op.name == "mma.dot" for op in after_module.walk()):  # schedule chose the tensor cores
            norm_tol = NORM_TOLERANCE["tensorize-matmul"]
        if norm_tol is None and all(o.dtype == np.float32 for o in before):
            norm_tol = F32_REORDERED  # an f32 sum in another order (register tiles, split K)
        for b, a in zip(before, after):
            assert not np.isnan(a).any(), "an output element was never written"
            if norm_tol is not None:
                assert np.linalg.norm(a - b) / np.linalg.norm(b) < norm_tol
            else:
                np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def _seed_rms():
    ctx = make_context()
    return ctx, parse_module(ctx, RMS.read_text().split("// -----")[0], RMS.name)


def test_exec_tile_rms_norm_matches_numpy():
    _, module = _seed_rms()
    rng = np.random.default_rng(0)
    x, w = rng.standard_normal((1, 32, 2048)), rng.standard_normal(2048)
    (out,) = exec_tile.run(module, [x, w])
    ref = x / np.sqrt((x * x).mean(-1, keepdims=True) + 1e-6) * w
    np.testing.assert_allclose(out, ref, rtol=1e-10)


def test_exec_tile_reads_only_the_staged_slab():
    """A stage whose slab misses what the loads read gives NaN, not the global value."""
    ctx, module = _seed_rms()
    PassPipeline.parse_spec(all_passes(), "stage-inputs").apply(ctx, module)
    text = str(module).replace("slab [a2 : 2048 at 2]", "slab [a2 : 1024 at 2]").replace(
        "memref<2048xf64, #tile.smem>", "memref<1024xf64, #tile.smem>"
    )
    bad = parse_module(make_context(), text, "bad")
    rng = np.random.default_rng(1)
    (out,) = exec_tile.run(bad, [rng.standard_normal((1, 32, 2048)), rng.standard_normal(2048)])
    assert np.isnan(out).all()


def test_full_pipeline_on_rms_norm_loop():
    """tileify .. mark-unroll on the loop-level RMSNorm keeps meaning end to end."""
    ctx = make_context()
    path = LIT / "tileify.mlir"
    module = parse_module(ctx, path.read_text().split("// -----")[0], path.name)
    rng = np.random.default_rng(2)
    inputs = random_inputs(module, rng)
    before = exec_tile.run(module, inputs)
    spec = "tileify,blockify-launch{block-size=16},cooperative-reduce,stage-inputs,mark-unroll"
    PassPipeline.parse_spec(all_passes(), normalize_pipeline(spec)).apply(ctx, module)
    module.verify()
    text = str(module)
    assert "tile.stage" in text and "tile.combine" in text
    np.testing.assert_allclose(exec_tile.run(module, inputs)[0], before[0], rtol=1e-10, atol=1e-10 * np.abs(before[0]).max())
