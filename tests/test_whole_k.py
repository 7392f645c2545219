"""pad-matmul `whole-k`: a ragged K of at most 124, rounded up to whole float4s, is staged whole,
at once, where the grid fills the SMs; meaning kept.

The lit inputs (test/lit/tile/pad-matmul-whole-k.mlir) run on the tile executor before and after
(tileify alone against tileify, pad-matmul{whole-k}, chunk-matmul-k) on random inputs; matmuls
with transposed operands and odd K (79, 37, 101) run through the whole pipeline on SIMT tiles
(`schedule{sms=1 tensor-cores=false repack=false}`: one SM, so any grid fills it) on the kernel
executor against float64, their K whole (79 -> 84, 37 -> 44, 101 -> 108) and its loop marked
for unrolling, and the CUDA compiles with nvcc.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from xdsl.parser import Parser

from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import loop, tile
from dpl.frontend import capture
from dpl.interpreters import exec_kernel
from dpl.transforms.pipelines import IR_PIPELINES, make_context, run_pipeline
from dpl.transforms.tile.pad_matmul import float4_rows

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import lit_cases, same_on_tile_executor  # noqa: E402
from frontend_ops import module_of  # noqa: E402

LIT = Path(__file__).parent.parent / "test" / "lit" / "tile" / "pad-matmul-whole-k.mlir"
PASSES = "tileify,pad-matmul{rows=2 cols=2 threads=4 k-tile=8 whole-k=32 sms=4},chunk-matmul-k{k-tile=8}"


@pytest.mark.parametrize("index", range(4))
def test_whole_k_keeps_the_meaning_of_the_lit_inputs(index: int):
    ctx = make_context()
    before = Parser(ctx, lit_cases(LIT)[index]).parse_module()
    after = before.clone()
    run_pipeline(before, "tileify")
    run_pipeline(after, PASSES)
    same_on_tile_executor(before, after, index, 1e-5)


PROGRAMS = [
    (lambda a, b: a.t() @ b.t(), [(79, 130), (301, 79)]),  # tt, K = 79: one 64 x 79 slab each
    (lambda a, b: torch.bmm(a, b.transpose(1, 2)), [(3, 97, 37), (3, 139, 37)]),  # nt, K = 37
    (lambda a, b: torch.bmm(a.transpose(1, 2), b.transpose(1, 2)), [(2, 101, 25), (2, 203, 101)]),  # tt, K = 101
]
SCHEDULE = "schedule{sms=1 tensor-cores=false repack=false},"


@pytest.mark.parametrize("fn,shapes", PROGRAMS)
def test_whole_k_matmuls_through_the_pipeline(fn, shapes, pass_log, nvcc_compile):
    gen = torch.Generator().manual_seed(3)
    xs = [torch.randn(*s, generator=gen) * 2 - 0.5 for s in shapes]
    k = float4_rows(shapes[1][-1])
    tiled = capture(module_of(fn), *xs).module.clone()
    run_pipeline(tiled, IR_PIPELINES["tile"].replace("split-nests,schedule", "split-nests," + SCHEDULE[:-1]))
    (t,) = [o for o in tiled.walk() if isinstance(o, tile.TileOp)]
    (kloop,) = [o for o in t.body.block.ops if isinstance(o, loop.ForOp)]  # whole, not chunked
    assert kloop.extent.data == k and tile.UNROLL in kloop.attributes
    module = capture(module_of(fn), *xs).module.clone()
    run_pipeline(module, IR_PIPELINES["kernel"].replace("schedule,", SCHEDULE))
    assert ", whole (" in pass_log.text
    out = exec_kernel.run(module, [x.double().numpy().copy() for x in xs])[0]
    ref = fn(*[x.double() for x in xs]).numpy()
    assert float(np.linalg.norm(out - ref) / np.linalg.norm(ref)) < 1e-6
    nvcc_compile(print_cuda(module))


GPU_CASES = [  # dpl's own schedule keeps each K whole (the grid fills the H100's / H200's SMs)
    (lambda a, b: a.t() @ b.t(), [(79, 512), (2741, 79)]),
    (lambda a, b: torch.bmm(a.transpose(1, 2), b.transpose(1, 2)), [(21, 101, 25), (21, 1381, 101)]),
    (lambda a, b: torch.bmm(a, b.transpose(1, 2)), [(64, 97, 37), (64, 739, 37)]),
    (lambda a, b: a @ b, [(1024, 101), (101, 1000)]),  # 51.7 KB of slabs: dynamic shared memory
]


@pytest.mark.gpu
@pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")
@pytest.mark.parametrize("fn,shapes", GPU_CASES)
def test_whole_k_matmuls_on_gpu(fn, shapes, pass_log):
    """Outputs poisoned first; relative error against float64 at most 2x eager's."""
    from dpl.driver.compile import compile as dpl_compile

    gen = torch.Generator().manual_seed(9)
    xs = [torch.randn(*s, generator=gen) for s in shapes]
    c = dpl_compile(module_of(fn), *xs, tune_cache=False)
    assert ", whole (" in pass_log.text
    gs = [x.cuda() for x in xs]
    out = c(*gs, poison=True).double()
    ref = fn(*[g.double() for g in gs])
    eager = fn(*gs).double()
    err = float((out - ref).norm() / ref.norm())
    eager_err = float((eager - ref).norm() / ref.norm())
    assert torch.isfinite(out).all()
    assert err <= max(2 * eager_err, 2e-6), (err, eager_err)
