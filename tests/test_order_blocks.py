"""order-blocks keeps meaning: a LayerNorm's normalize kernel (its statistics split off) with its
batch axis moved last among the block axes computes the same on the tile executor, and through
materialize on the kernel executor against PyTorch in float64; its CUDA compiles and launches
the batch in blockIdx.x. The schedule reorders the normalize kernel of a LayerNorm over
(64, 256, 256), whose weight and bias are 16 MB each."""

from __future__ import annotations

import numpy as np
import torch

from dpl.backend.cuda_printer import print_cuda
from dpl.frontend import capture_expression
from dpl.interpreters import exec_kernel, exec_tile
from dpl.interpreters.exec_loop import main_func
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

EXPR = "torch.nn.functional.layer_norm(torch.randn(5,3,8,12), (3,8,12), torch.randn(3,8,12), torch.randn(3,8,12))"
TILE = ("split-nests,split-row-stats,split-nests,tileify,collapse-pointwise,vectorize-pointwise{min-threads=1},"
        "blockify-launch{block-size=32}")
KERNEL = IR_PIPELINES["kernel"][len(IR_PIPELINES["tile"]) :].lstrip(",")


def _inputs(prog, seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    args = main_func(prog.module).body.block.args[: prog.num_inputs]
    return [(3 * rng.standard_normal(tuple(a.type.get_shape()))).astype(np.float32) for a in args]


def test_reordered_blocks_keep_meaning(nvcc_compile):
    prog = capture_expression(EXPR, dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["loop"] + "," + TILE)
    before = prog.module.clone()
    run_pipeline(prog.module, "order-blocks{min-bytes=0}")
    text = str(prog.module)
    assert "(%a1 : 3 = block, %a0_2 : 5 = block, %a2 : 8 = thread" in text, text
    for seed in (1, 2):
        inputs = _inputs(prog, seed)
        (old,) = exec_tile.run(before.clone(), inputs)
        (new,) = exec_tile.run(prog.module.clone(), inputs)
        np.testing.assert_array_equal(old, new)
    run_pipeline(prog.module, KERNEL)
    inputs = _inputs(prog, 3)
    (out,) = exec_kernel.run(prog.module, inputs)
    ref = prog.fn(*[torch.from_numpy(x).double() for x in inputs]).detach().numpy()
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-4)
    source = print_cuda(prog.module)
    normalize = source[source.index("void k_layer_norm("):]
    assert "int a0 = blockIdx.x;" in normalize and "int a1 = blockIdx.y;" in normalize  # the batch fastest
    nvcc_compile(source)


def test_the_schedule_orders_a_split_layer_norm_by_its_weights(pass_log):
    prog = capture_expression("torch.nn.functional.layer_norm(torch.randn(16,64,256,256), (64,256,256), "
                              "torch.randn(64,256,256), torch.randn(64,256,256))", dtype=torch.float32)  # fmt: skip
    run_pipeline(prog.module, IR_PIPELINES["tile"])
    assert "order-blocks: @k_layer_norm: the blocks sharing its broadcast inputs run together" in pass_log.text
