"""inline-constants keeps meaning.

- Each case of test/lit/decompose/inline-constants.mlir gives the same outputs on the tensor
  executor before and after the pass, on random inputs with negative values.
- Captured programs full of Python-number constants (erfinv by Horner's rule, i0 by Clenshaw's
  recurrence, a Beta log-density) give the same outputs on the tensor executor with and
  without the pass, bit for bit in float64, and lose their constant ops.
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

from dpl.transforms.decompose.inline_constants import scalar_constant  # noqa: E402

LIT = Path(__file__).resolve().parent.parent / "test" / "lit" / "decompose" / "inline-constants.mlir"


@pytest.mark.parametrize("case", range(len(lit_cases(LIT))))
def test_lit_case_keeps_meaning(case: int):
    tensor_lit_case_keeps_meaning(lit_cases(LIT)[case], "inline-constants", case)


def _beta(x, y):
    a, b = F.softplus(x) + 0.5, F.softplus(y) + 0.5
    u = torch.sigmoid(x - y).clamp(1e-4, 1 - 1e-4)
    return torch.lgamma(a + b) - torch.lgamma(a) + (1 - a) * torch.digamma(b) + torch.erfinv(2 * u - 1)


PROGRAMS = {
    "erfinv": (lambda x: torch.erfinv(torch.tanh(x)), [(7, 9)]),
    "i0_i0e": (lambda x: torch.special.i0(x * 4) + torch.special.i0e(x * 20), [(5, 11)]),
    "beta": (_beta, [(3, 13), (3, 13)]),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_programs_keep_meaning(name: str):
    fn, shapes = PROGRAMS[name]
    before, after = tensor_program_keeps_meaning(module_of(fn), shapes, 7, "inline-constants")
    constants = lambda m: sum(o.name == "tensor.elementwise" and scalar_constant(o.results[0]) is not None for o in m.walk())  # noqa: E731
    assert constants(before) > 10 and constants(after) < constants(before) / 4
