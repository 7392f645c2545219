"""Frontend: argument order/names, one-line unsupported-op errors, the seeds' IR."""

import numpy as np
import pytest
import torch

from dpl.frontend import UnsupportedOpError, capture, capture_expression
from dpl.frontend.capture import decompose_unhandled
from dpl.interpreters import exec_tensor, exec_torch
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline


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
    [("torch.bincount(torch.randint(0, 5, (8,)))", "aten.bincount"), ("torch.special.gammainc(torch.rand(4), torch.rand(4))", "aten.special_gammainc")],
)
def test_unsupported_op_is_one_line(expr, op):
    with pytest.raises(UnsupportedOpError) as info:
        capture_expression(expr)
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith(f"unsupported op {op}")
    assert "(at " in message


def test_a_torch_func_transform_is_one_line():
    """torch.func.grad leaves its result a wrapped tensor, a constant no capture can read (it
    was a traceback from `.numpy()`)."""
    with pytest.raises(UnsupportedOpError) as info:
        capture_expression("torch.func.grad(lambda a: (a ** 3).sum())(torch.randn(5))")
    message = str(info.value)
    assert "\n" not in message and "torch.func transforms" in message


class CTC(torch.nn.Module):
    def forward(self, x):
        targets = torch.ones(2, 3, dtype=torch.long)
        return torch.nn.functional.ctc_loss(x.log_softmax(-1), targets, (7, 7), (3, 2))


def test_an_op_export_cannot_size_is_one_line():
    """ctc_loss's output shape depends on the lengths' values: export refuses it with the op's
    name alone, which the message now explains."""
    with pytest.raises(UnsupportedOpError) as info:
        capture(CTC(), torch.randn(7, 2, 5))
    message = str(info.value)
    assert "\n" not in message
    assert message.startswith("torch.export failed: aten._ctc_loss.default's output shape depends on")


class SeededNoise(torch.nn.Module):
    def forward(self, x):
        return x + torch.randn(x.shape, generator=torch.Generator().manual_seed(0))


def test_an_object_made_in_forward_is_named():
    """A torch.Generator made in forward is lifted by export as a custom object input; the
    refusal names its type and what reads it (it read "unsupported input kind
    InputKind.CUSTOM_OBJ for 'obj_lifted_custom_0'")."""
    with pytest.raises(UnsupportedOpError) as info:
        capture(SeededNoise(), torch.randn(3))
    assert str(info.value) == "unsupported Generator object made in the program (read by aten.randn.generator)"


class Igamma(torch.nn.Module):
    def forward(self, x):
        return torch.igamma(x, x) * 2


def test_unsupported_op_names_source_line():
    with pytest.raises(UnsupportedOpError, match=r"unsupported op aten\.igamma\.default \(at .*test_frontend_capture\.py:\d+"):
        capture(Igamma(), torch.rand(3, 4))


class Frexp(torch.nn.Module):
    def forward(self, x):
        return torch.frexp(x)[0] * 2


def test_frexp_of_half_values_is_one_line():
    """frexp reads a float's bits: float32 and float64 layouts only (a float16 program captured
    as it is, without dpl.compile's float32, has f16 values)."""
    with pytest.raises(UnsupportedOpError, match=r"^unsupported frexp of f16 values \(float32 and float64 only\) \(at [^\n]*\)$"):
        capture(Frexp(), torch.randn(3, dtype=torch.float16))


def test_negative_dims_are_normalised():
    text = str(capture_expression("torch.randn(2,3,4).transpose(-1,-2).sum(-1)").module)
    assert "dim0 = 1, dim1 = 2" in text or "dim0 = 2, dim1 = 1" in text
    assert "dims = [2]" in text


class LinearRelu(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(4, 3)

    def forward(self, x):
        return torch.relu(self.lin(x)).sum(-1)


def test_a_program_of_handled_ops_is_not_decomposed():
    """`decompose_unhandled` leaves an exported program whose ops all have handlers as it is
    (so the IR of everything that captured before does not change)."""
    ep = torch.export.export(LinearRelu(), (torch.randn(2, 4),), strict=False)
    assert decompose_unhandled(ep) is ep


def test_an_op_without_a_handler_captures_through_its_decomposition():
    """cross_entropy has no handler: PyTorch's decomposition of it (log_softmax, a gather, a
    mean) captures, and the torch executor gives PyTorch's value."""
    x, t = torch.randn(5, 7, dtype=torch.float64), torch.randint(0, 7, (5,))
    prog = capture_expression("torch.nn.functional.cross_entropy(torch.randn(5, 7), torch.randint(0, 7, (5,)))",
                              dtype=torch.float64)  # fmt: skip
    assert "cross_entropy" not in str(prog.module)
    (out,) = exec_torch.run(prog.module, [x.numpy(), t.numpy()])
    assert abs(float(out) - float(torch.nn.functional.cross_entropy(x, t))) < 1e-12


def test_an_op_left_by_a_decomposition_is_named_as_written():
    with pytest.raises(UnsupportedOpError) as info:
        capture_expression("torch.view_as_real(torch.linalg.eigvals(torch.randn(3, 3)))")
    assert str(info.value).startswith(
        "unsupported op aten.linalg_eigvals.default (PyTorch decomposes it into aten.linalg_eig.default)")


def test_a_constant_past_float32_is_inf():
    """`x * 1e300 + 1e-50` in a float32 program: the constants are float32's inf and 0, as in
    PyTorch (it was an OverflowError while packing the literal), at the torch and tensor
    levels alike."""
    class M(torch.nn.Module):
        def forward(self, x):
            return x * 1e300 + 1e-50

    x = torch.tensor([1.0, -2.0, 0.0, 3.0, -0.5])
    ref = M()(x).numpy()
    prog = capture(M(), x, dtype=torch.float32)
    (got,) = exec_torch.run(prog.module, [x.numpy()])
    np.testing.assert_array_equal(got, ref)
    run_pipeline(prog.module, IR_PIPELINES["tensor"])
    (got,) = exec_tensor.run(prog.module, [x.numpy()])
    np.testing.assert_array_equal(got, ref)
