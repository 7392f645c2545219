"""torch.compile(model, backend="dpl") on the CPU: capture, partition, fallback and messages.

The dpl parts run on the kernel-level CPU executor (`options={"executor": "cpu"}`): the same
kernel IR the GPU would run, so the partitioned program is checked end to end against eager.
tests/test_dynamo_gpu.py runs the suite's programs and a decoder layer on the GPU.
"""

from __future__ import annotations

import tomllib
import warnings
from importlib import import_module
from importlib.metadata import entry_points
from pathlib import Path

import pytest
import torch
from torch import nn

from dpl.driver import dynamo
from dpl.driver.dynamo import DplBackendWarning, DplPart, dpl_backend

ROOT = Path(__file__).resolve().parent.parent
CPU = {"executor": "cpu"}


@pytest.fixture(autouse=True)
def _fresh_dynamo():
    dynamo.register()
    torch._dynamo.reset()
    yield
    torch._dynamo.reset()


class Recorder:
    """A backend that runs dpl_backend and keeps what it returned, to inspect the partition."""

    def __init__(self, options=None, run=True):
        self.options, self.run, self.compiled = options or CPU, run, []

    def __call__(self, gm, example_inputs, **kwargs):
        fn = dpl_backend(gm, example_inputs, options=self.options)
        self.compiled.append(fn)
        return fn if self.run else gm.forward

    def parts(self) -> tuple[int, list[str]]:
        """(number of dpl parts, ATen ops left to eager) of the last compiled graph."""
        gm = self.compiled[-1].graph_module
        dpl = sum(isinstance(m, DplPart) for m in gm.children())
        eager = [str(n.target) for n in gm.graph.nodes
                 if n.op == "call_function" and n.target.__module__ != "_operator"]
        return dpl, eager


def _dpl_warnings(record) -> list[str]:
    return [str(w.message) for w in record if issubclass(w.category, DplBackendWarning)]


class Mlp(nn.Module):
    def __init__(self, act: nn.Module):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(8, 16), act, nn.Linear(16, 4))

    def forward(self, x):
        return torch.log_softmax(self.body(x), dim=-1)


def test_supported_model_is_one_dpl_part_and_matches_eager():
    model = Mlp(nn.LeakyReLU(0.2)).eval()
    rec = Recorder()
    compiled = torch.compile(model, backend=rec, fullgraph=True, dynamic=False)
    x = torch.randn(3, 8)
    with torch.no_grad(), warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        out, ref = compiled(x), model(x)
    assert _dpl_warnings(record) == []
    assert rec.parts() == (1, [])
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-6)


def test_unsupported_op_runs_eagerly_with_one_warning_naming_it():
    model = Mlp(nn.Threshold(0.1, 20.0)).eval()
    rec = Recorder()
    compiled = torch.compile(model, backend=rec, dynamic=False)
    x = torch.randn(3, 8)
    with torch.no_grad(), warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        out, ref = compiled(x), model(x)
    messages = _dpl_warnings(record)
    assert len(messages) == 1, messages
    assert "runs eagerly (unsupported): aten.threshold.default" in messages[0]
    assert "Threshold" in messages[0]  # the module it comes from
    assert rec.parts() == (2, ["aten.threshold.default"])
    torch.testing.assert_close(out, ref, rtol=1e-5, atol=1e-6)


def test_unsupported_op_reports_the_users_line():
    def f(x):
        y = torch.sigmoid(x)
        return torch.igamma(y, y) * 2.0  # the line the warning names

    line = f.__code__.co_firstlineno + 2
    compiled = torch.compile(f, backend=Recorder(), dynamic=False)
    with torch.no_grad(), warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        x = torch.randn(4, 5)
        torch.testing.assert_close(compiled(x), f(x))
    (message,) = _dpl_warnings(record)
    assert f"aten.igamma.default (at {__file__}:{line}, in f)" in message


def test_partition_that_fails_to_compile_runs_eagerly(monkeypatch):
    def broken(name, sub, options):
        raise RuntimeError("no GPU here")

    monkeypatch.setattr(dynamo, "_compile_part", broken)
    model = Mlp(nn.ReLU()).eval()
    compiled = torch.compile(model, backend=Recorder(), dynamic=False)
    x = torch.randn(3, 8)
    with torch.no_grad(), warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        out, ref = compiled(x), model(x)
    (message,) = _dpl_warnings(record)
    assert "a partition failed to compile (RuntimeError: no GPU here); it runs eagerly" in message
    torch.testing.assert_close(out, ref)


def test_training_gets_a_clear_message_and_runs_eagerly():
    model = Mlp(nn.ReLU())
    compiled = torch.compile(model, backend=Recorder(), dynamic=False)
    x = torch.randn(3, 8)
    with warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        out = compiled(x)
    (message,) = _dpl_warnings(record)
    assert "training is not compiled" in message and "torch.no_grad()" in message
    assert out.requires_grad
    out.sum().backward()  # eager autograd still works
    assert model.body[0].weight.grad is not None


def test_dynamic_shapes_get_a_clear_message_and_run_eagerly():
    model = Mlp(nn.ReLU()).eval()
    compiled = torch.compile(model, backend=Recorder(), dynamic=True)
    with torch.no_grad(), warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        x = torch.randn(3, 8)
        torch.testing.assert_close(compiled(x), model(x))
    messages = _dpl_warnings(record)
    assert messages and "dynamic shapes are not compiled" in messages[0]
    assert "dynamic=False" in messages[0]


def test_unknown_option_is_an_error():
    gm = torch.fx.symbolic_trace(Mlp(nn.ReLU()).eval())
    with pytest.raises(ValueError, match="dpl backend: unknown option 'graphs'"):
        dpl_backend(gm, [torch.randn(3, 8)], options={"graphs": False})


def test_several_outputs_and_integer_results():
    def f(x):
        values, idx = torch.max(x, dim=1)
        return values * 2.0, idx, (x > 0).any(0)

    compiled = torch.compile(f, backend=Recorder(), fullgraph=True, dynamic=False)
    x = torch.randn(4, 6)
    with torch.no_grad():
        out, ref = compiled(x), f(x)
    assert isinstance(out, tuple) and len(out) == 3
    for o, r in zip(out, ref):
        assert o.dtype == r.dtype
        torch.testing.assert_close(o, r)


def test_a_loss_and_a_scalar_input_keep_their_0d_shapes():
    """A 0-d result (a loss) comes back 0-d, and a 0-d input is read as one (the CPU executors
    once made both shape (1,))."""

    def f(x, scale):
        return (x * scale).pow(2).mean(), scale.sum(-1) + 1.0

    compiled = torch.compile(f, backend=Recorder(), fullgraph=True, dynamic=False)
    x, scale = torch.randn(4, 6), torch.tensor(0.5)
    with torch.no_grad():
        out, ref = compiled(x, scale), f(x, scale)
    for o, r in zip(out, ref):
        assert o.shape == r.shape == ()
        torch.testing.assert_close(o, r)


def test_decoder_layer_is_one_dpl_part():
    """A TinyLlama decoder layer through Dynamo: every op is dpl's (compiled, not run here)."""
    pytest.importorskip("transformers")
    from dpl.frontend import hf

    module, inputs = hf.decoder_layer("tinyllama", seq=8, dtype=torch.float32)
    rec = Recorder(run=False)
    compiled = torch.compile(module, backend=rec, fullgraph=True, dynamic=False)
    with torch.no_grad(), warnings.catch_warnings(record=True) as record:
        warnings.simplefilter("always")
        compiled(*inputs)
    assert _dpl_warnings(record) == []
    assert rec.parts() == (1, [])


def test_entry_point_names_the_backend():
    meta = tomllib.loads((ROOT / "pyproject.toml").read_text())
    target = meta["project"]["entry-points"]["torch_dynamo_backends"]["dpl"]
    module, attr = target.split(":")
    assert getattr(import_module(module), attr) is dpl_backend
    installed = [e for e in entry_points(group="torch_dynamo_backends") if e.name == "dpl"]
    if installed:  # the installed package has it too (after `pip install -e .` of this tree)
        assert installed[0].value == target
    assert "dpl" in torch._dynamo.list_backends(exclude_tags=())
