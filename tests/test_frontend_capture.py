"""Frontend: argument order/names, one-line unsupported-op errors, the seeds' IR."""

import pytest
import torch

from dpl.frontend import UnsupportedOpError, capture, capture_expression


def test_expression_names_and_args():
    prog = capture_expression("torch.relu(torch.matmul(torch.randn(16,64) + torch.randn(64), torch.randn(64,16)))")
    assert prog.arg_names == ["x", "y", "z"]
    assert [tuple(a.shape) for a in prog.args] == [(16, 64), (64,), (64, 16)]
    text = str(prog.module)
    assert "torch.add %x, %y" in text and "torch.relu" in text


def test_module_params_follow_inputs():
    prog = capture_expression("torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))")
    assert prog.arg_names == ["x", "p_weight"]
    block = prog.main.body.block
    assert [a.name_hint for a in block.args] == ["x", "p_weight"]


def test_dtype_cast():
    prog = capture(torch.nn.Linear(4, 3), torch.randn(2, 4), dtype=torch.float64)
    assert all(a.dtype == torch.float64 for a in prog.args)
    assert "f32" not in str(prog.module)


@pytest.mark.parametrize(
    "expr, op",
    [("torch.sort(torch.randn(8))[0]", "aten.sort"), ("torch.fft.fft(torch.randn(8))", "aten.fft_fft")],
)
def test_unsupported_op_is_one_line(expr, op):
    with pytest.raises(UnsupportedOpError) as info:
        capture_expression(expr)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"unsupported op {op}")
    assert "(at " in message


class Sorter(torch.nn.Module):
    def forward(self, x):
        return torch.sort(x, dim=-1)[0] * 2


def test_unsupported_op_names_source_line():
    with pytest.raises(UnsupportedOpError, match=r"unsupported op aten\.sort\.default \(at .*test_frontend_capture\.py:\d+"):
        capture(Sorter(), torch.randn(3, 4))


def test_negative_dims_are_normalised():
    text = str(capture_expression("torch.randn(2,3,4).transpose(-1,-2).sum(-1)").module)
    assert "dim0 = 1, dim1 = 2" in text or "dim0 = 2, dim1 = 1" in text
    assert "dims = [2]" in text
