"""fold-concats, lower-to-loops' nested concats and split-nests' `kernel.apart` keep meaning.

- Each case of test/lit/decompose/fold-concats.mlir gives the same outputs on the tensor
  executor before and after the pass, on random inputs.
- Random chains of slice assignments (PyTorch's `y[a:b, c:d] = ...` on a zeroed or cloned
  tensor, on odd shapes, over one or two axes, with reads of what was assigned and a view at
  the end) are captured in float64 and run through every level (tensor, loop, tile and kernel
  executors) against PyTorch; no program allocates more buffer elements than it does without
  fold-concats; the temporal shift's parts run as one launch.
"""

from __future__ import annotations

import random
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from xdsl.dialects import memref

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import lit_cases, tensor_lit_case_keeps_meaning  # noqa: E402
from frontend_ops import _TemporalShift  # noqa: E402

from dpl.dialects import kernel as K  # noqa: E402
from dpl.frontend import capture  # noqa: E402
from dpl.interpreters import exec_kernel, exec_loop, exec_tensor, exec_tile, exec_torch  # noqa: E402
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline  # noqa: E402

LIT = Path(__file__).resolve().parent.parent / "test" / "lit" / "decompose" / "fold-concats.mlir"


@pytest.mark.parametrize("case", range(len(lit_cases(LIT))))
def test_lit_case_keeps_meaning(case: int):
    tensor_lit_case_keeps_meaning(lit_cases(LIT)[case], "fold-concats", case)


def _slice(rng: random.Random, n: int) -> slice:
    a = rng.randrange(n)
    return slice(a, rng.randrange(a + 1, n + 1))


class _Assignments(torch.nn.Module):
    """A seeded chain of slice assignments into a zeroed (or cloned) 3-D tensor."""

    def __init__(self, seed: int, shape: tuple[int, ...]):
        super().__init__()
        rng = random.Random(seed)
        self.zero = rng.random() < 0.5
        self.steps = []
        for _ in range(rng.randint(2, 4)):
            box = [slice(None)] * len(shape)
            for axis in rng.sample(range(len(shape)), rng.randint(1, 2)):
                box[axis] = _slice(rng, shape[axis])
            self.steps.append((tuple(box), rng.choice(["x", "y", "self"]), rng.randint(-1, 1)))
        self.view = rng.random() < 0.5

    def forward(self, x, y):
        out = torch.zeros_like(x) if self.zero else x.clone()
        for box, src, shift in self.steps:
            size = out[box].shape
            source = {"x": x, "y": y, "self": out}[src]
            # the same box moved by `shift` along the first sliced axis, kept inside the tensor
            moved = list(box)
            for axis, s in enumerate(box):
                if s != slice(None):
                    lo = min(max(s.start + shift, 0), source.shape[axis] - size[axis])
                    moved[axis] = slice(lo, lo + size[axis])
                    break
            out[box] = source[tuple(moved)] * 2.0 if src == "self" else source[tuple(moved)]
        if self.view:
            return out.reshape(out.shape[0] * out.shape[1], -1) + 0.0
        return out + 0.0


SHAPES = [(5, 7, 3), (4, 6, 9), (7, 3, 5), (6, 5, 4)]


def _kernels(module) -> int:
    return sum(1 for o in module.walk() if isinstance(o, K.LaunchOp))


def _written(module) -> int:
    """Elements of every buffer the program allocates (its intermediates and outputs)."""
    return sum(o.memref.type.element_count() for o in module.walk() if isinstance(o, memref.AllocOp))


@pytest.mark.parametrize("seed", range(12))
def test_slice_assignments_keep_meaning(seed: int):
    shape = SHAPES[seed % len(SHAPES)]
    module = _Assignments(seed, shape)
    gen = torch.Generator().manual_seed(seed)
    x, y = (torch.randn(shape, generator=gen, dtype=torch.float64) * 3 - 1 for _ in range(2))
    prog = capture(module, x, y, dtype=torch.float64)
    with torch.no_grad():
        ref = module(x, y).numpy()
    arrays = [x.numpy(), y.numpy()]
    ir = prog.module
    done = ""
    for level, run in (("torch", exec_torch.run), ("tensor", exec_tensor.run), ("loop", exec_loop.run),
                       ("tile", exec_tile.run), ("kernel", exec_kernel.run)):  # fmt: skip
        spec = IR_PIPELINES[level]
        run_pipeline(ir, spec[len(done) :].lstrip(","))
        done = spec
        (out,) = run(ir, arrays)
        np.testing.assert_array_equal(out, ref, err_msg=f"seed {seed} at the {level} level")
    without = capture(module, x, y, dtype=torch.float64).module
    run_pipeline(without, IR_PIPELINES["kernel"].replace("fold-concats,", ""))
    assert _written(ir) <= _written(without)


def test_temporal_shift_is_two_launches():
    """The temporal shift (slice assignments along time and channels of a 5-D view, then the
    view back) was 12 launches; it is one launch of the concat's five parts and the channels
    it keeps, then the copy back through the reshape."""
    prog = capture(_TemporalShift(8), torch.randn(64, 256, 14, 14), dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["kernel"])
    assert _kernels(prog.module) == 2
