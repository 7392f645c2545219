"""A program written in float16 / bfloat16 (its parameters, inputs, or a cast inside it) records
`Program.half_source` at capture, and `dpl.compile` then runs its matmuls in single-pass TF32
(its own error is a half type's, about 4e-3, above TF32's 1e-3); an fp32 program keeps 3xTF32,
and a precision given is kept."""

import torch
from torch import nn

from dpl.driver.compile import compile as dpl_compile
from dpl.frontend.capture import capture


class Cast(nn.Module):
    def forward(self, a, b):
        return (a.to(torch.bfloat16) @ b.to(torch.bfloat16)).float()


def test_half_source_is_recorded():
    lin = nn.Linear(64, 32)
    assert not capture(lin, torch.randn(8, 64), dtype=torch.float32).half_source
    assert capture(nn.Linear(64, 32).half(), torch.randn(8, 64).half(), dtype=torch.float32).half_source
    assert capture(Cast(), torch.randn(8, 64), torch.randn(64, 32), dtype=torch.float32).half_source
    assert capture(lin, torch.randn(8, 64).bfloat16(), dtype=torch.float32).half_source


def test_compile_picks_tf32_for_a_half_program():
    a, b = torch.randn(1024, 512), torch.randn(512, 1024)
    assert dpl_compile(Cast(), a, b).precision == "tf32"
    assert dpl_compile(lambda x, y: x @ y, a, b).precision == "3xtf32"
    assert dpl_compile(Cast(), a, b, precision="3xtf32").precision == "3xtf32"
