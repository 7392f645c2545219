"""fuse-loops' guards on a contraction's shape, on nested reductions, on a padded window's
select and on transcendentals recomputed per output, collapse-matmul-axes over a store in a unit
loop, and `torch.iota` (sort, top-k and scans compare loop indices, not a table): ordinary
programs that each rule changes (a squeeze-excite block, a cross entropy, a convolution then a
pixel shuffle, a ResNet basic block's first convolution, depthwise and grouped convolutions,
top-k, sort, cumprod, a cumprod of a sigmoid, a sigmoid gate, a softmax under a mixture's sum, a
reflect-padded convolution), each through the loop pipeline with the rule's decision in the log,
on the loop executor before and after fuse-loops (and collapse-matmul-axes) on the program's own
random inputs (negative and positive; index inputs in range), and through the kernel pipeline to
CUDA that nvcc compiles; fuse-costly-recompute.mlir's cases on the loop executor before and
after, at the default limit and at 2, and fuse-gathered-prologue.mlir's with a reflect pad's
table."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from xdsl.parser import Parser

from dpl.backend.cuda_mma import WGMMA_ARCH, needs_sm90a
from dpl.backend.cuda_printer import print_cuda
from dpl.dialects import loop, make_context
from dpl.frontend import capture_expression
from dpl.interpreters import exec_loop
from dpl.interpreters.exec_loop import main_func
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from conftest import lit_case_keeps_meaning, lit_cases, program_inputs

F = "F."
COSTLY_LIT = Path(__file__).parent.parent / "test/lit/loop/fuse-costly-recompute.mlir"
GATHERED_LIT = Path(__file__).parent.parent / "test/lit/loop/fuse-gathered-prologue.mlir"
LOOP = IR_PIPELINES["loop"]
BEFORE_FUSE = LOOP[: LOOP.index("fuse-loops")].rstrip(",")
AFTER_FUSE = LOOP[LOOP.index("fuse-loops"):]

CASES = {
    # the SE scale broadcast over h, w stays out of the second linear's tile
    "squeeze_excite": ("(lambda x, w1, w2: x * torch.sigmoid(torch.relu(x.mean((2, 3)) @ w1) @ w2)[:, :, None, None])"
                       "(torch.randn(2, 24, 5, 7), torch.randn(24, 4), torch.randn(4, 24))",
                       "a broadcast would run inside the matmul's tile"),
    # the per-row log-sum-exp stays out of the mean's loop over rows
    "cross_entropy": (F + "cross_entropy(torch.randn(6, 40), torch.randint(0, 40, (6,)))",
                      "its reduction would run inside a reduce loop of 1 outputs"),
    # the shuffle's loops index both of the convolution's operands
    "conv_pixel_shuffle": (F + "pixel_shuffle(" + F + "conv2d(torch.randn(2, 3, 6, 5), torch.randn(12, 3, 3, 3), padding=1), 2)",
                           "the contraction's M x N would shrink"),
    # a convolution whose output keeps a unit dim after its reduce loop
    "conv_unit_store": ("torch.nn.Conv2d(6, 8, 3, padding=1, bias=False)(torch.randn(2, 6, 5, 7))[:, :, 1:, :]",
                        "collapse-matmul-axes: @"),
    # a 5x5 depthwise window reads each padded value ~25 times: the padded copy stays
    "depthwise_5x5": ("torch.nn.Conv2d(4, 4, 5, padding=2, groups=4)(torch.randn(2, 4, 20, 22))",
                      "reads per value (limit 16"),
    # a 3x3 one reads it ~9 times: the select fuses
    "depthwise_3x3": ("torch.nn.Conv2d(4, 4, 3, padding=1, groups=4)(torch.randn(2, 4, 9, 11))", "fuse @k_padded"),
    "grouped_3x3": ("torch.nn.Conv2d(8, 8, 3, padding=1, groups=2)(torch.randn(2, 8, 6, 7))", "refuse @k_padded"),
    # ranks counted over loop-index comparisons: no n x n buffer, one reduction kernel
    "topk": ("torch.topk(torch.randn(3, 37), 5, dim=-1).values", "fuse @k_iota"),
    "sort": ("torch.sort(torch.randn(4, 19), dim=0).values", "fuse @k_iota"),
    "cumprod": ("torch.cumprod(torch.randn(3, 45), dim=1)", "fuse @k_iota"),
    # a sigmoid read 64 times a value by a blocked scan's in-chunk sums stays a kernel
    "cumprod_sigmoid": ("torch.cumprod(torch.sigmoid(torch.randn(2, 640)), dim=1)",
                        "transcendentals and divisions per output (limit 32"),
    # a softmax over 8 experts read under the mixture's sum (16 more per output) fuses
    "experts_softmax": ("torch.einsum('te,teh->th', torch.softmax(torch.randn(16,8),-1), torch.randn(16,8,40))",
                        "fuse @k_softmax"),
    # read outside any reduce loop (a broadcast gate), it fuses
    "sigmoid_gate": ("torch.randn(5, 300) * torch.sigmoid(torch.randn(5))[:, None]", "fuse @k_sigmoid"),
    # a reflect pad's gather stays out of the convolution's reduce body
    "reflect_conv": ("torch.nn.Conv2d(4, 8, 3)(" + F + "pad(torch.randn(2, 4, 7, 9), (1, 1, 1, 1), mode='reflect'))",
                     "transcendentals, divisions, loop-index comparisons, gathers or loops"),
    # a max-pool's window loop stays out of the linear after it (LeNet: the nest was no matmul)
    "pool_linear": ("torch.nn.Linear(16, 4)(" + F + "max_pool2d(torch.randn(2, 2, 4, 8), 2).flatten(1))",
                    "reduce body would run loop.for per multiply-add"),
}


def _inputs(prog) -> list[np.ndarray]:
    return [a.detach().numpy().copy() for a in prog.args]


@pytest.mark.parametrize("name", list(CASES))
def test_fusion_keeps_meaning_and_logs_its_rule(name: str, pass_log):
    expr, logged = CASES[name]
    prog = capture_expression(expr, dtype=torch.float32)
    run_pipeline(prog.module, BEFORE_FUSE)
    before = prog.module.clone()
    run_pipeline(prog.module, AFTER_FUSE)
    prog.module.verify()
    assert logged in pass_log.text
    ins = _inputs(prog)
    refs = exec_loop.run(before, [a.copy() for a in ins])
    outs = exec_loop.run(prog.module, [a.copy() for a in ins])
    for out, ref in zip(outs, refs):
        assert not np.isnan(out).any(), "an output element was never written"
        np.testing.assert_allclose(out, ref, rtol=2e-6, atol=2e-6)


@pytest.mark.parametrize("options", ["", "{max-costly-recompute=2}"])
@pytest.mark.parametrize("case", range(len(lit_cases(COSTLY_LIT))))
def test_costly_recompute_lit_cases_keep_meaning(case: int, options: str):
    lit_case_keeps_meaning(lit_cases(COSTLY_LIT)[case], "fuse-loops" + options, rtol=1e-6)


def test_gathered_prologue_lit_keeps_meaning():
    """fuse-gathered-prologue.mlir with its table holding a reflect pad's positions."""
    before = Parser(make_context(), GATHERED_LIT.read_text()).parse_module()
    after = before.clone()
    run_pipeline(after, "fuse-loops")
    after.verify()
    x, w, _ = program_inputs(main_func(before), 4)
    ins = [x.astype(np.float64), w.astype(np.float64), np.array([1, 0, 1, 2, 3, 4, 5, 4], np.int64)]
    refs = exec_loop.run(before, [a.copy() for a in ins])
    outs = exec_loop.run(after, [a.copy() for a in ins])
    for out, ref in zip(outs, refs):
        np.testing.assert_array_equal(out, ref)


def test_cross_entropy_rows_reduce_in_parallel():
    """Each row's log-sum-exp is a kernel of its own (free loops over the rows), not a loop
    inside the mean's reduce loop."""
    prog = capture_expression(CASES["cross_entropy"][0], dtype=torch.float32)
    run_pipeline(prog.module, LOOP)
    for k in prog.module.walk():
        if isinstance(k, loop.KernelOp):
            for red in k.walk():
                if isinstance(red, loop.ForOp) and red.is_reduce:
                    assert not any(isinstance(o, loop.ForOp) and o.is_reduce for o in red.body.walk()), k.sym_name.data


def test_topk_builds_no_square_buffer():
    """The ranks of a row of n are one reduction over loop-index comparisons: no n x n buffer."""
    prog = capture_expression("torch.topk(torch.randn(64, 300), 8, dim=-1).values", dtype=torch.float32)
    run_pipeline(prog.module, LOOP)
    sizes = [int(np.prod(o.memref.type.get_shape())) for o in prog.module.walk() if o.name == "memref.alloc"]
    assert max(sizes) <= 64 * 300


@pytest.mark.parametrize("name", ["squeeze_excite", "cross_entropy", "conv_pixel_shuffle", "topk", "grouped_3x3", "cumprod_sigmoid", "reflect_conv"])
def test_kernels_compile(name: str, nvcc_compile):
    prog = capture_expression(CASES[name][0], dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["kernel"])
    arch = WGMMA_ARCH if needs_sm90a(prog.module.walk()) else "sm_90"
    nvcc_compile(print_cuda(prog.module), arch=arch)  # fails the test on an error
