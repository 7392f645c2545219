"""The shared-memory stage passes (double-buffer, async-copy, tma-copy, split-inner-for-swizzle,
pad-smem, pipeline-k-outer): the target parser, option checks, the executor's model of buffer
slots (a wrong slot index must change the result), and the passes chained on relu(matmul)."""

from pathlib import Path

import numpy as np
import pytest
from xdsl.passes import PassPipeline

from dpl.interpreters import exec_tile
from dpl.interpreters.exec_loop import main_func
from dpl.dialects import make_context
from dpl.dialects.parsing import parse_module
from dpl.transforms import all_passes
from dpl.transforms.tile.target import parse_target

LIT = Path(__file__).parent.parent / "test" / "lit" / "tile"


def _case(name: str, index: int = 0):
    ctx = make_context()
    text = (LIT / name).read_text().split("// -----")[index]
    return ctx, parse_module(ctx, text, name)


def _inputs(module, seed=0):
    rng = np.random.default_rng(seed)
    args = main_func(module).body.block.args
    return [rng.standard_normal(tuple(a.type.get_shape())) for a in args]


def _apply(ctx, module, spec):
    PassPipeline.parse_spec(all_passes(), spec).apply(ctx, module)
    module.verify()


@pytest.mark.parametrize("text,sm", [("sm_80", 80), ("sm_90", 90), ("sm_120", 120), ("sm_75", 75)])
def test_parse_target(text, sm):
    assert parse_target(text) == sm


@pytest.mark.parametrize("text", ["sm_91x", "sm90", "90", "sm_", "sm_09", ""])
def test_parse_target_rejects(text):
    with pytest.raises(ValueError, match="bad target") as info:
        parse_target(text)
    assert "\n" not in str(info.value)


@pytest.mark.parametrize(
    "spec",
    [
        "double-buffer{buffers=1}",
        "split-inner-for-swizzle{swizzle=48}",
        "pad-smem{pad=0}",
        "pipeline-k-outer{depth=1}",
        "tma-copy{target=sm_9x}",
    ],
)
def test_bad_options_are_value_errors(spec):
    with pytest.raises(ValueError):
        PassPipeline.parse_spec(all_passes(), spec)


def test_wrong_buffer_slot_changes_the_result():
    """After double-buffer, reading slot (k + 1) mod 2 reads the previous fill or NaN."""
    ctx, module = _case("double-buffer.mlir")
    inputs = _inputs(module)
    before = exec_tile.run(module, inputs)[0]
    _apply(ctx, module, "double-buffer")
    text = str(module)
    np.testing.assert_allclose(exec_tile.run(module, inputs)[0], before, rtol=1e-12, atol=1e-12 * np.abs(before).max())
    for bad_index in ("(%a2 + 1) mod 2", "0"):
        bad = text.replace("w_smem[%a2 mod 2,", f"w_smem[{bad_index},")
        assert bad != text
        out = exec_tile.run(parse_module(make_context(), bad, "bad"), inputs)[0]
        assert not np.allclose(out, before, equal_nan=True)


def test_slot_out_of_range_is_an_error():
    ctx, module = _case("double-buffer.mlir")
    _apply(ctx, module, "double-buffer{buffers=3}")
    bad = str(module).replace("x_smem[%a2 mod 3,", "x_smem[%a2 + 2,")
    with pytest.raises(ValueError, match="slot out of range"):
        exec_tile.run(parse_module(make_context(), bad, "bad"), _inputs(module))


@pytest.mark.parametrize("target", ["sm_90", "sm_80"])
def test_chain_on_relu_matmul(target):
    """double-buffer .. pipeline-k-outer on the plain relu(matmul) keeps meaning; on sm_90 x and
    w are TMA with swizzle, bias (one row) too but unswizzled; on sm_80 all are cp.async and
    x is padded."""
    ctx, module = _case("double-buffer.mlir")
    inputs = _inputs(module, 3)
    before = exec_tile.run(module, inputs)[0]
    _apply(
        ctx,
        module,
        f"double-buffer,tma-copy{{target={target}}},split-inner-for-swizzle,pad-smem,"
        f"async-copy{{target={target}}},pipeline-k-outer",
    )
    text = str(module)
    assert "tile.pipeline = 2" in text
    if target == "sm_90":
        assert text.count(" tma :") == 1 and text.count("tma swizzle 128") == 2
        assert "pad" not in text and "async" not in text
    else:
        assert text.count(" async :") == 3 and "pad [0, 1]" in text and "tma" not in text
    np.testing.assert_allclose(exec_tile.run(module, inputs)[0], before, rtol=1e-10, atol=1e-10 * np.abs(before).max())
