"""The schedule's matmul tile choice (64 x 64 or 128 x 128 block tiles, by the launch model)
keeps meaning: a linear layer with bias, scheduled with the 8 x 8 register tiles (forced by a
one-SM model) and lowered through materialize and accumulate-in-place, computes what the loop IR
does on the CPU, and its CUDA compiles."""

from __future__ import annotations

import numpy as np
import torch

from dpl.interpreters import exec_kernel, exec_loop
from dpl.backend.cuda_printer import print_cuda
from dpl.interpreters.exec_loop import main_func
from dpl.dialects import kernel as K
from dpl.dialects import tile
from dpl.frontend import capture_expression
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from dpl.transforms.tile.schedule_classes import MATMUL_TILES


# 256 x 256 outputs, K 64 (2 trips of 32). With one SM: 64 x 64 tiles are 16 blocks, 3 at once,
# 6 rounds (31 us); 128 x 128 are 4 blocks, one at once, 4 rounds (26 us): 128 x 128 wins.
EXPR = "torch.nn.functional.linear(torch.randn(256,64), torch.randn(256,64), torch.randn(256))"


def test_128x128_tile_keeps_meaning(nvcc_compile):
    module = capture_expression(EXPR, dtype=torch.float64).module
    run_pipeline(module, IR_PIPELINES["loop"])
    rng = np.random.default_rng(0)
    inputs = [rng.standard_normal(tuple(a.type.get_shape())) for a in main_func(module).body.block.args]
    (expected,) = exec_loop.run(module, inputs)

    run_pipeline(module, "split-nests,schedule{sms=1}")
    cells = [e for t in module.walk() if isinstance(t, tile.TileOp) for _, e, k in t.axes if k == tile.AxisKind.CELL]
    assert cells == [8, 8], cells
    run_pipeline(module, "materialize,accumulate-in-place")
    module.verify()
    assert any(isinstance(op, K.AllocaOp) for op in module.walk()), "accumulate-in-place declined"
    (out,) = exec_kernel.run(module, inputs)
    np.testing.assert_allclose(out, expected, rtol=1e-10, atol=1e-12)
    nvcc_compile(print_cuda(module))


def test_small_matmul_takes_32x32_tiles():
    module = capture_expression(EXPR, dtype=torch.float64).module
    run_pipeline(module, IR_PIPELINES["tile"])  # 132 SMs: 16 blocks of 64 x 64 leave most idle, 64 of 32 x 32 fewer
    cells = [e for t in module.walk() if isinstance(t, tile.TileOp) for _, e, k in t.axes if k == tile.AxisKind.CELL]
    assert cells == [2, 2], cells


def test_a_shrunk_tile_runs_more_blocks_at_once():
    """A 64 x 64 tile that M = 21 shrinks to 8 x 16 threads: an SM holds twice its 3 blocks, as
    many as its shared memory allows, at the whole block's trip time."""
    t64 = next(c for c in MATMUL_TILES if (c.rows, c.cols) == (4, 4))
    assert t64.at_once(256) == 3 and t64.at_once(128) == 6 and t64.at_once(32) == 24
    assert t64.sm_trip_us(6, 128) == t64.trip_us  # one full round of shrunk blocks
    assert t64.sm_trip_us(6, 128, smem_fits=3) == 2 * t64.trip_us  # shared memory holds 3: two rounds
