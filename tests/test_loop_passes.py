"""Every loop-level pass keeps meaning: run each lit input before and after its pass on the
loop executor, on fresh random inputs, and compare (float64)."""

from pathlib import Path

import numpy as np
import pytest
from xdsl.dialects.builtin import MemRefType
from xdsl.passes import PassPipeline

from dpl.backend.exec_loop import main_func, run
from dpl.dialects import make_context
from dpl.tools.common import parse_module
from dpl.tools.dpl_opt import normalize_pipeline
from dpl.transforms import all_passes

LIT = Path(__file__).parent.parent / "test" / "lit" / "loop"
CASES = sorted(LIT.glob("*.mlir"))


def pipeline_of(path: Path) -> str:
    run_line = next(line for line in path.read_text().splitlines() if "RUN:" in line)
    return normalize_pipeline(run_line.split("--pass-pipeline=")[1].split("'")[1])


def random_inputs(module, rng):
    return [
        rng.standard_normal(tuple(a.type.get_shape()))
        for a in main_func(module).body.block.args
        if isinstance(a.type, MemRefType)
    ]


@pytest.mark.parametrize("path", CASES, ids=[p.stem for p in CASES])
def test_pass_keeps_meaning(path: Path):
    ctx = make_context()
    module = parse_module(ctx, path.read_text(), path.name)
    rng = np.random.default_rng(0)
    for _ in range(2):
        inputs = random_inputs(module, rng)
        before = run(module, inputs)
        after_module = module.clone()
        PassPipeline.parse_spec(all_passes(), pipeline_of(path)).apply(ctx, after_module)
        after_module.verify()
        after = run(after_module, inputs)
        assert len(before) == len(after) >= 1
        for b, a in zip(before, after):
            assert not np.isnan(a).any()
            np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
