"""stack-as-select keeps meaning: each lit case on the tensor executor before and after, on
random inputs; stacks as people write them (interleaved rotary, stacks of reductions, along the
last axis and, declined, along others) through every executor level against PyTorch; and GPT-J's
interleaved rotary is one kernel (it was a strided write per part and a copy)."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import lit_cases, tensor_lit_case_keeps_meaning  # noqa: E402
from frontend_ops import Fn  # noqa: E402

from dpl.dialects import loop  # noqa: E402
from dpl.frontend import capture  # noqa: E402
from dpl.interpreters import exec_kernel, exec_loop, exec_tensor  # noqa: E402
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline  # noqa: E402

LIT = Path(__file__).resolve().parent.parent / "test" / "lit" / "decompose" / "stack-as-select.mlir"


@pytest.mark.parametrize("case", range(len(lit_cases(LIT))))
def test_lit_case_keeps_meaning(case: int):
    tensor_lit_case_keeps_meaning(lit_cases(LIT)[case], "stack-as-select", case)


def _rope(x, cos, sin):
    x1, x2 = x[..., ::2], x[..., 1::2]
    return torch.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], -1).flatten(-2)


PROGRAMS = {
    "rope_interleaved": (_rope, [(2, 3, 8, 10), (8, 5), (8, 5)]),
    "coords": (lambda x, y: torch.stack([x.sum(-1), y.amax(-1), x.mean(-1)], 0) * 2, [(5, 7), (5, 7)]),
    "stack_dim1": (lambda x: torch.stack([x, x * x, -x, x + 1], 1).reshape(3, -1), [(3, 9)]),
    "stack_five": (lambda x: torch.stack([x, x, x, x, x], -1), [(4, 3)]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_stack_matches_pytorch_at_every_level(name):
    fn, shapes = PROGRAMS[name]
    gen = torch.Generator().manual_seed(0)
    xs = [torch.randn(s, generator=gen, dtype=torch.float64) for s in shapes]
    prog = capture(Fn(fn), *xs, dtype=torch.float64)
    ref = fn(*xs).numpy()
    module = prog.module
    run_pipeline(module, IR_PIPELINES["tensor"])
    (out,) = exec_tensor.run(module, [x.numpy() for x in xs])
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)
    run_pipeline(module, IR_PIPELINES["loop"][len(IR_PIPELINES["tensor"]) + 1 :])
    (out,) = exec_loop.run(module, [x.numpy() for x in xs])
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)
    if name == "rope_interleaved":
        assert sum(isinstance(o, loop.KernelOp) for o in module.walk()) == 1
    run_pipeline(module, IR_PIPELINES["kernel"][len(IR_PIPELINES["loop"]) + 1 :])
    (out,) = exec_kernel.run(module, [x.numpy() for x in xs])
    np.testing.assert_allclose(out, ref, rtol=1e-12, atol=1e-12)
