"""fuse-elementwise keeps meaning.

- Each case of test/lit/decompose/fuse-elementwise.mlir gives the same outputs on the tensor
  executor before and after the pass, on random inputs with negative values.
- Captured programs whose elementwise graphs branch and rejoin (lgamma and digamma, a
  grid_sample, a softplus chain with shared values) give the same outputs on the tensor
  executor with and without the pass, bit for bit in float64, at odd sizes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import torch
import torch.nn.functional as F

sys.path.insert(0, str(Path(__file__).resolve().parent))
from conftest import lit_cases, tensor_lit_case_keeps_meaning, tensor_program_keeps_meaning  # noqa: E402
from frontend_ops import module_of  # noqa: E402


LIT = Path(__file__).resolve().parent.parent / "test" / "lit" / "decompose" / "fuse-elementwise.mlir"


@pytest.mark.parametrize("case", range(len(lit_cases(LIT))))
def test_lit_case_keeps_meaning(case: int):
    tensor_lit_case_keeps_meaning(lit_cases(LIT)[case], "fuse-elementwise", case)


def _softplus_chain(x, y):
    s = F.softplus(x) + 0.1
    return s * torch.tanh(y) - s.exp() / (1 + y * y), (s - y).abs().sqrt()


PROGRAMS = {
    "lgamma_digamma": (lambda x: torch.lgamma(3 * x) * torch.digamma(x - 0.5), [(5, 7)]),
    "grid_sample": (lambda x, g: F.grid_sample(x, torch.tanh(g) * 1.2, mode="bicubic", padding_mode="reflection",
                                               align_corners=False), [(2, 3, 5, 7), (2, 3, 4, 2)]),
    "softplus_chain": (_softplus_chain, [(3, 11), (3, 11)]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_keep_meaning(name: str):
    fn, shapes = PROGRAMS[name]
    before, after = tensor_program_keeps_meaning(module_of(fn), shapes, 5, "fuse-elementwise")
    count = lambda m: sum(o.name == "tensor.elementwise" for o in m.walk())  # noqa: E731
    assert count(after) < count(before)
