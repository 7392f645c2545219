"""Complex values as (real, imag) pairs (frontend/complex_pairs.py): each op the rewrite takes, in
a small module captured in float64 and run on the torch-level CPU executor, gives PyTorch's
values (complex by complex, by a broadcast real tensor, by Python numbers real and complex;
negative dims; division of parts near float64's range), with no complex type left in the IR; the
rewritten FX graph itself runs in PyTorch, every node's `val` what running it gives. Meta's Llama
RoPE (odd sequence length, angles past pi/2) captures from buffers and from inputs, and runs
through every level down to the kernel executor. Refusals are one line naming the op and the
user's line: sqrt, pow, an fft of a long prime length, a complex output, a complex input,
complex32. Fourier transforms (DFT matmuls, split past DFT_DIRECT points) match torch.fft over
lengths odd, even, prime and split, every norm, one-sided and not, several dims, and the STFT."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from torch import fx, nn

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frontend_ops import compare, flat_outputs, module_of  # noqa: E402

from dpl.frontend import UnsupportedOpError, capture  # noqa: E402
from dpl.frontend.capture import capture_graph, decompose_unhandled  # noqa: E402
from dpl.frontend.complex_pairs import _RULES, SUPPORTED, carries_complex, complex_as_pairs  # noqa: E402
from dpl.interpreters import exec_torch  # noqa: E402

vc, vr = torch.view_as_complex, torch.view_as_real
X, R, V = (3, 4, 2), (3, 4), (4,)  # a complex (3, 4) as pairs, a real (3, 4), a real (4,)

#: name -> (function, input shapes): each returns real tensors (view_as_real of its complex result)
CASES = {
    "identity": (lambda x: vr(vc(x)) * 1.0, [X]),
    "polar": (lambda r, t: vr(torch.polar(r.abs(), t)), [R, R]),
    "polar_broadcast": (lambda r, t: vr(torch.polar(r.abs(), t)), [R, V]),
    "complex": (lambda a, b: vr(torch.complex(a, b)), [R, R]),
    "mul": (lambda x, y: vr(vc(x) * vc(y)), [X, X]),
    "mul_real": (lambda x, r: vr(vc(x) * r), [X, R]),
    "mul_real_broadcast": (lambda x, r: vr(r * vc(x)), [(4, 2), (5, 3, 4)]),
    "mul_scalar": (lambda x: vr(vc(x) * -2.5), [X]),
    "mul_complex_scalar": (lambda x: vr(vc(x) * (0.5 - 2j)), [X]),
    "real_times_1j": (lambda r: vr(r * 1j), [R]),
    "add": (lambda x, y: vr(vc(x) + vc(y)), [X, X]),
    "add_alpha": (lambda x, y: vr(torch.add(vc(x), vc(y), alpha=-2)), [X, X]),
    "add_real_broadcast": (lambda x, r: vr(vc(x) + r), [(1, 4, 2), R]),
    "add_scalar": (lambda x: vr(vc(x) + 1.5), [X]),
    "add_complex_scalar": (lambda x: vr(vc(x) + (1 - 2j)), [X]),
    "sub": (lambda x, y: vr(vc(x) - vc(y)), [X, X]),
    "sub_real_alpha": (lambda x, r: vr(torch.sub(vc(x), r, alpha=3)), [X, R]),
    "rsub_real": (lambda x, r: vr(r - vc(x)), [X, V]),
    "rsub_scalar": (lambda x: vr(1.5 - vc(x)), [X]),
    "div": (lambda x, y: vr(vc(x) / vc(y)), [X, X]),
    "div_real": (lambda x, r: vr(vc(x) / (r.abs() + 0.5)), [X, R]),
    "rdiv_real": (lambda x, r: vr(r / vc(x)), [X, R]),
    "div_scalar": (lambda x: vr(vc(x) / 4), [X]),
    "rdiv_scalar": (lambda x: vr(2 / vc(x)), [X]),
    "div_complex_scalar": (lambda x: vr(vc(x) / (1 + 2j)), [X]),
    # |y|^2 would underflow to 0 (1e-300) or overflow to inf (1e300): the divisor is scaled first
    "div_tiny_and_huge": (lambda x, y: vr(vc(x * 1e-300) / vc(y * 1e-300)) + vr(vc(x * 1e300) / vc(y * 1e300)), [X, X]),
    "reciprocal": (lambda x: vr(vc(x).reciprocal()), [X]),
    "neg": (lambda x: vr(-vc(x)), [X]),
    "conj_mul": (lambda x, y: vr(vc(x).conj() * vc(y)), [X, X]),
    "conj_physical": (lambda x: vr(torch.conj_physical(vc(x))), [X]),
    "resolve_conj": (lambda x: vr(vc(x).conj().resolve_conj()), [X]),
    "real_imag": (lambda x: vc(x).real * 2 + torch.imag(vc(x)), [X]),
    "abs": (lambda x: vc(x).abs(), [X]),
    "angle": (lambda x: vc(x).angle(), [X]),
    "exp": (lambda x: vr(vc(x).exp()), [X]),
    "view": (lambda x: vr(vc(x).view(-1, 2)), [X]),
    "reshape_flatten": (lambda x: vr(vc(x).reshape(2, -1).flatten()), [(2, 3, 4, 2)]),
    "unflatten": (lambda x: vr(vc(x).unflatten(-1, (2, 2))), [X]),
    "permute": (lambda x: vr(vc(x).permute(2, 0, -2)), [(2, 3, 4, 2)]),
    "transpose": (lambda x: vr(vc(x).transpose(-1, -3)), [(2, 3, 4, 2)]),
    "t": (lambda x: vr(vc(x).T), [X]),
    "unsqueeze": (lambda x: vr(vc(x).unsqueeze(-1) + vc(x).unsqueeze(-3)), [(3, 3, 2)]),
    "squeeze": (lambda x: vr(vc(x).unsqueeze(1).squeeze(-2)), [X]),
    "squeeze_all": (lambda x: vr(vc(x).squeeze()), [(1, 4, 1, 2)]),
    "expand": (lambda x: vr(vc(x)[:, :1].expand(2, -1, 5)), [X]),
    "slice": (lambda x: vr(vc(x)[1:, ::2] + vc(x)[:2, -3:-1]), [X]),
    "select": (lambda x: vr(vc(x)[-1] * vc(x)[:, -2].sum()), [X]),
    "cat": (lambda x, y: vr(torch.cat([vc(x), vc(y)], -1)), [X, X]),
    "cat_real": (lambda x, r: vr(torch.cat([vc(x), r], -2)), [X, R]),
    "stack": (lambda x, y: vr(torch.stack([vc(x), vc(y)], -1)), [X, X]),
    "clone": (lambda x: vr(vc(x).clone()), [X]),
    "sum": (lambda x: vr(vc(x).sum(-1)), [X]),
    "sum_all": (lambda x: vr(vc(x).sum()), [X]),
    "sum_keepdim": (lambda x: vr(vc(x).sum((-1, 0), keepdim=True)), [(2, 3, 4, 2)]),
    "mean": (lambda x: vr(vc(x).mean(-2)), [X]),
    "mm": (lambda x, y: vr(vc(x) @ vc(y).T), [X, X]),
    "bmm": (lambda x, y: vr(torch.bmm(vc(x), vc(y))), [(2, 3, 4, 2), (2, 4, 5, 2)]),
    "matmul_broadcast": (lambda x, y: vr(vc(x) @ vc(y)), [(2, 3, 4, 2), (4, 5, 2)]),
    "matmul_vector": (lambda x, y: vr(vc(x) @ vc(y)), [X, (4, 2)]),
    # no rewrite of einsum: PyTorch's decomposition of it (bmm) is offered, as for an unhandled op
    "einsum": (lambda x, y: vr(torch.einsum("bij,bjk->bik", vc(x), vc(y))), [(2, 3, 4, 2), (2, 4, 5, 2)]),
    "to_complex": (lambda x, r: vr(r.to(torch.complex128) * vc(x)), [X, R]),
    "roll": (lambda x: vr(torch.roll(vc(x), (2, -1), (0, 1))) + vr(torch.roll(vc(x), 3)), [X]),
    "zeros_slice_assign": (lambda x, y: vr(_assigned(vc(x), vc(y))), [X, (3, 2, 2)]),
    "full_like_ones": (lambda x: vr(torch.full_like(vc(x), 2 - 1j) + torch.ones(4, dtype=torch.complex128) + torch.zeros_like(vc(x))), [X]),
    "flip": (lambda x: vr(torch.flip(vc(x), (-1,))), [X]),
    # Fourier transforms: a matmul by the DFT matrix up to DFT_DIRECT (512) points, split past it
    "rfft_even_odd": (lambda x, y: (vr(torch.fft.rfft(x)), vr(torch.fft.rfft(y, norm="ortho"))), [(3, 16), (2, 15)]),
    "fft_of_real": (lambda x: vr(torch.fft.fft(x, norm="forward")), [(3, 12)]),
    "fft_ifft": (lambda x: vr(torch.fft.fft(vc(x))) + vr(torch.fft.ifft(vc(x))), [(3, 10, 2)]),
    "irfft_lengths": (lambda x: (torch.fft.irfft(vc(x)), torch.fft.irfft(vc(x), n=13), torch.fft.irfft(vc(x), n=12, norm="ortho")),
                      [(3, 7, 2)]),  # fmt: skip
    "fft2_dims": (lambda x: (vr(torch.fft.rfft2(x)), vr(torch.fft.fftn(x, dim=(0, 2), norm="ortho")),
                             torch.fft.irfft2(torch.fft.rfft2(x) * 1.5, s=(6, 8))), [(2, 6, 8)]),  # fmt: skip
    "fftshift": (lambda x: vr(torch.fft.ifftshift(torch.fft.fftshift(torch.fft.fft2(x)) * 2)), [(2, 6, 5)]),
    "hfft": (lambda x: torch.fft.hfft(vc(x), n=10), [(3, 6, 2)]),
    "rfft_split": (lambda x, y: (vr(torch.fft.rfft(x)), vr(torch.fft.fft(y))), [(2, 1024), (2, 600)]),
    "irfft_split": (lambda x, y: (torch.fft.irfft(torch.fft.rfft(x) * 3), torch.fft.irfft(torch.fft.rfft(y), n=1155)),
                    [(2, 2048), (2, 1155)]),  # fmt: skip
    "fft_split_twice": (lambda x: vr(torch.fft.fft(vc(x), norm="ortho")), [(1, 16384 * 2, 2)]),
    "fft_prime_direct": (lambda x: vr(torch.fft.rfft(x)), [(2, 1031)]),
    "fft_convolution": (lambda x, k: torch.fft.irfft(torch.fft.rfft(x, n=128) * torch.fft.rfft(k, n=128), n=128)[..., :100],
                        [(4, 100), (4, 29)]),  # fmt: skip
    "stft_istft": (lambda x: (vr(torch.stft(x, 64, hop_length=16, window=torch.hann_window(64, dtype=x.dtype), return_complex=True)),
                              torch.istft(torch.stft(x, 64, hop_length=16, window=torch.hann_window(64, dtype=x.dtype), return_complex=True),
                                          64, hop_length=16, window=torch.hann_window(64, dtype=x.dtype), length=300)),
                   [(2, 300)]),  # fmt: skip
}


def _assigned(z: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    """A zeroed complex tensor with a slice and a row assigned (copy, slice_scatter, select_scatter)."""
    out = torch.zeros(3, 5, dtype=z.dtype)
    out[:, 1:3] = w
    out[2] = z[0, 1]
    out[:, -1:] = z[:, :1] * 2
    return out


def _inputs(shapes, seed: int = 0, dtype=torch.float64) -> list[torch.Tensor]:
    gen = torch.Generator().manual_seed(seed)
    return [torch.randn(s, generator=gen, dtype=torch.float64).to(dtype) for s in shapes]


def _run(prog, inputs) -> list[np.ndarray]:
    args = [x.numpy() for x in inputs] + [a.detach().numpy() for a in prog.args[prog.num_inputs :]]
    return exec_torch.run(prog.module, args)


def _assert_matches(outs, refs, tol: float) -> None:
    assert len(outs) == len(refs)
    for o, r in zip(outs, refs):
        err = compare(np.asarray(o), r.detach().numpy())
        assert err < tol, f"error {err:.2e}"


@pytest.mark.parametrize("name", sorted(CASES))
def test_op_matches_pytorch(name: str):
    fn, shapes = CASES[name]
    module = module_of(fn)
    prog = capture(module, *_inputs(shapes), dtype=torch.float64)
    assert "complex" not in str(prog.module)
    xs = _inputs(shapes, seed=1)
    _assert_matches(_run(prog, xs), flat_outputs(module(*xs)), 1e-12)


class _Checked(fx.Interpreter):
    """Runs a graph, checking each node's value against its `val`'s shape and dtype."""

    def run_node(self, n):
        out = super().run_node(n)
        val = n.meta.get("val")
        if isinstance(val, torch.Tensor):
            assert (tuple(out.shape), out.dtype) == (tuple(val.shape), val.dtype), n.format_node()
        return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_rewritten_graph_runs_in_pytorch(name: str):
    """No node carries a complex value; the graph, recompiled, is PyTorch's function still."""
    fn, shapes = CASES[name]
    module, xs = module_of(fn), _inputs(shapes)
    ep = decompose_unhandled(torch.export.export(module, tuple(xs)))
    complex_as_pairs(ep.graph)
    ep.graph_module.recompile()
    assert not any(carries_complex(n) for n in ep.graph.nodes)
    _assert_matches([o.numpy() for o in _Checked(ep.graph_module).run(*xs)], flat_outputs(module(*xs)), 1e-12)


def test_mixed_precisions_promote_as_pytorch():
    """complex64 with a float64 tensor computes in complex128, with a 0-d float64 one (or a
    Python number) in complex64; complex64 with complex128 in complex128."""

    def fn(x, r, s, y):
        z = torch.view_as_complex(x)
        return vr(z * r), vr(z / s + s - 1j * z), vr(z * torch.view_as_complex(y)), (z + r).abs()

    xs = [torch.randn(3, 4, 2), torch.randn(3, 4, dtype=torch.float64), torch.tensor(1.5, dtype=torch.float64),
          torch.randn(3, 4, 2, dtype=torch.float64)]  # fmt: skip
    module = module_of(fn)
    refs = flat_outputs(module(*xs))
    assert [r.dtype for r in refs] == [torch.float64, torch.float32, torch.float64, torch.float64]
    ep = torch.export.export(module, tuple(xs))
    complex_as_pairs(ep.graph)
    ep.graph_module.recompile()
    _assert_matches([o.numpy() for o in _Checked(ep.graph_module).run(*xs)], refs, 1e-6)
    prog = capture(module, *xs)
    _assert_matches(_run(prog, xs), refs, 1e-6)


# ----------------------------------------------------------------------------- Llama's RoPE


class MetaRope(nn.Module):
    """Meta's reference Llama rotary embedding, freqs_cis made from HF-style cos / sin buffers."""

    def __init__(self, seq: int, head_dim: int):
        super().__init__()
        inv_freq = 1.0 / (10000 ** (torch.arange(0, head_dim, 2, dtype=torch.float64) / head_dim))
        angles = torch.outer(torch.arange(seq, dtype=torch.float64), inv_freq)  # past pi/2: cos < 0
        self.register_buffer("cos", angles.cos().float())
        self.register_buffer("sin", angles.sin().float())

    @staticmethod
    def rotate(q, k, cos, sin):
        f = torch.polar(torch.ones_like(cos), torch.atan2(sin, cos))[None, :, None, :]  # (1, seq, 1, d/2)
        qc = torch.view_as_complex(q.reshape(*q.shape[:-1], -1, 2))
        kc = torch.view_as_complex(k.reshape(*k.shape[:-1], -1, 2))
        return torch.view_as_real(qc * f).flatten(3), torch.view_as_real(kc * f).flatten(3)

    def forward(self, q, k):
        return self.rotate(q, k, self.cos, self.sin)


class MetaRopeOfInputs(nn.Module):
    def forward(self, q, k, cos, sin):
        return MetaRope.rotate(q, k, cos, sin)


@pytest.mark.parametrize("dtype", [None, torch.float64])
def test_llama_rope_from_buffers(dtype):
    seq, heads, head_dim = 7, 3, 8
    module = MetaRope(seq, head_dim)
    prog = capture(module, *_inputs([(2, seq, heads, head_dim)] * 2, dtype=torch.float32), dtype=dtype)
    text = str(prog.module)
    assert "complex" not in text and "torch.mul" in text
    xs = _inputs([(2, seq, heads, head_dim)] * 2, seed=1, dtype=dtype or torch.float32)
    _assert_matches(_run(prog, xs), flat_outputs(module(*xs)), 1e-12 if dtype else 1e-6)


def test_llama_rope_from_inputs_at_every_level():
    """cos / sin as inputs (the polar computed in the program), down to the kernel executor."""
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from test_frontend_ops import _stages

    seq, heads, head_dim = 5, 2, 6
    module = MetaRopeOfInputs()
    shapes = [(1, seq, heads, head_dim)] * 2 + [(seq, head_dim // 2)] * 2
    prog = capture(module, *_inputs(shapes), dtype=torch.float64)
    xs = _inputs(shapes, seed=2)
    refs = flat_outputs(module(*xs))
    for level, passes, run in _stages():
        from dpl.transforms.pipelines import run_pipeline

        run_pipeline(prog.module, passes)
        outs = run(prog.module, [x.numpy() for x in xs])
        for o, r in zip(outs, refs):
            assert compare(o, r.numpy()) < 1e-12, level


def test_new_nodes_keep_the_users_line():
    module = MetaRopeOfInputs()
    xs = _inputs([(1, 3, 2, 4)] * 2 + [(3, 2)] * 2)
    ep = torch.export.export(module, tuple(xs))
    complex_as_pairs(ep.graph)
    for n in ep.graph.nodes:
        if n.op == "call_function":
            assert "test_complex_pairs.py" in n.meta["stack_trace"], n.format_node()
            assert n.meta["nn_module_stack"]


def test_capture_graph_takes_complex_values():
    """The torch.compile backend's path: an ATen graph converted as it is."""
    module = MetaRopeOfInputs()
    xs = _inputs([(1, 5, 2, 6)] * 2 + [(5, 3)] * 2)
    gm = torch.export.export(module, tuple(xs)).graph_module
    prog = capture_graph(gm, xs)
    assert "complex" not in str(prog.module)
    _assert_matches(_run(prog, xs), flat_outputs(module(*xs)), 1e-12)


class ComplexState(nn.Module):
    """A complex buffer and a complex constant (a plain tensor attribute)."""

    def __init__(self):
        super().__init__()
        gen = torch.Generator().manual_seed(3)
        self.register_buffer("w", torch.randn(4, dtype=torch.complex64, generator=gen))
        self.k = torch.randn(3, 1, dtype=torch.complex64, generator=gen)

    def forward(self, x):
        return torch.view_as_real(torch.view_as_complex(x) * self.w + self.k)


@pytest.mark.parametrize("dtype", [None, torch.float64])
def test_complex_buffers_and_constants_are_pairs(dtype):
    module = ComplexState()
    prog = capture(module, *_inputs([X], dtype=torch.float32), dtype=dtype)
    assert module.w.is_complex()  # capture(dtype=...) keeps a complex buffer complex
    assert [tuple(a.shape) for a in prog.args[1:]] == [(4, 2), (3, 1, 2)]
    xs = _inputs([X], seed=1, dtype=dtype or torch.float32)
    _assert_matches(_run(prog, xs), flat_outputs(module(*xs)), 1e-12 if dtype else 1e-6)


def test_a_real_graph_is_untouched():
    ep = torch.export.export(module_of(lambda x: torch.relu(x).sum(-1)), (torch.randn(3, 4),))
    before = str(ep.graph)
    complex_as_pairs(ep.graph)
    assert str(ep.graph) == before


# ----------------------------------------------------------------------------- refusals


class Sqrt(nn.Module):
    def forward(self, x):
        return torch.view_as_real(torch.view_as_complex(x).sqrt())


class LongPrimeFft(nn.Module):
    def forward(self, x):
        return torch.fft.rfft(x).abs()


class Square(nn.Module):
    def forward(self, x):
        return torch.view_as_real(torch.view_as_complex(x) ** 2)


class ComplexOut(nn.Module):
    def forward(self, x):
        return torch.view_as_complex(x) * 2


class ComplexIn(nn.Module):
    def forward(self, z):
        return torch.view_as_real(z * 2)


def _error(module, *inputs) -> str:
    with pytest.raises(UnsupportedOpError) as info:
        capture(module, *inputs)
    message = str(info.value)
    assert "\n" not in message
    return message


def test_an_unhandled_complex_op_is_named_at_the_users_line():
    message = _error(Sqrt(), torch.randn(8, 2))
    assert message.startswith("unsupported op aten.sqrt.default")
    assert "on complex values (complex values are supported, as (real, imag) pairs, for view_as_complex" in message
    assert " mul, " in message and "matmul" in message
    assert "(at " in message and "test_complex_pairs.py:" in message and message.endswith("in forward)")
    message = _error(Square(), torch.randn(3, 2))
    assert message.startswith("unsupported op aten.pow.Tensor_Scalar on complex values")


def test_an_fft_of_a_long_prime_length_is_refused():
    message = _error(LongPrimeFft(), torch.randn(8209))
    assert message.startswith("unsupported fft of 8209 points: its prime factor 8209 is past 4096")
    assert "test_complex_pairs.py:" in message
    assert _error(LongPrimeFft(), torch.randn(2 * 4099)).startswith("unsupported fft of 8198 points: its prime factor 4099")


def test_a_complex_output_is_refused():
    message = _error(ComplexOut(), torch.randn(3, 2))
    assert message.startswith("output 0 of the program is complex (torch.complex64)")
    assert "torch.view_as_real" in message and "test_complex_pairs.py:" in message


@pytest.mark.filterwarnings("ignore:ComplexHalf support is experimental")
def test_a_complex_input_and_complex32_are_refused():
    message = _error(ComplexIn(), torch.randn(3, dtype=torch.complex64))
    assert message.startswith("complex input 'z' is not supported: pass torch.view_as_real(z)")
    message = _error(module_of(lambda x: torch.view_as_real(torch.view_as_complex(x) * 2)), torch.randn(3, 2).half())
    assert message.startswith("unsupported torch.complex32 values")


def test_the_message_names_rewritten_ops():
    rewritten = {op._schema.name.split("::")[1] for op in _RULES}
    named = set(SUPPORTED.split(", ")) - {"slicing"}
    assert named <= rewritten and "slice" in rewritten, named - rewritten


def test_a_refusal_leaves_the_graph_as_it_was():
    ep = torch.export.export(Sqrt(), (torch.randn(8, 2),))
    before = str(ep.graph)
    with pytest.raises(UnsupportedOpError):
        complex_as_pairs(ep.graph)
    assert str(ep.graph) == before
