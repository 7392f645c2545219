"""torch -> tensor decompositions keep the meaning: captured PyTorch, decompose-torch +
fold-index-maps, run on the tensor executor, compared with PyTorch in float64 on fresh inputs."""

from __future__ import annotations

import math

import pytest
import torch
import torch.nn.functional as F
from torch import nn

from dpl.interpreters import exec_tensor
from dpl.dialects import make_context
from dpl.frontend.capture import capture
from dpl.frontend.check import rel_err
from dpl.transforms.decompose.fold_index_maps import FoldIndexMaps
from dpl.transforms.decompose.torch_all import DecomposeTorch

try:
    from dpl.interpreters import exec_torch
except ImportError:  # pragma: no cover - the torch-level executor is optional here
    exec_torch = None


class Fn(nn.Module):
    def __init__(self, fn):
        super().__init__()
        self.fn = fn

    def forward(self, *xs):
        return self.fn(*xs)


def randn(*shape):
    return lambda: torch.randn(*shape, dtype=torch.float64)


def positive(*shape):
    return lambda: torch.rand(*shape, dtype=torch.float64) + 0.5


def ids(high, *shape):
    return lambda: torch.randint(0, high, shape)


CASES = {
    "neg": (lambda x: -x, [randn(4, 8)]),
    "relu": (torch.relu, [randn(4, 8)]),
    "silu": (F.silu, [randn(4, 8)]),
    "sigmoid": (torch.sigmoid, [randn(4, 8)]),
    "exp": (torch.exp, [randn(4, 8)]),
    "tanh": (torch.tanh, [randn(4, 8)]),
    "rsqrt": (torch.rsqrt, [positive(4, 8)]),
    "sqrt": (torch.sqrt, [positive(4, 8)]),
    "reciprocal": (torch.reciprocal, [positive(4, 8)]),
    "cos_sin": (lambda x: torch.cos(x) + torch.sin(x), [randn(4, 8)]),
    "gelu": (F.gelu, [randn(4, 8)]),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), [randn(4, 8)]),
    "add_bcast": (lambda x, b: x + b, [randn(3, 4, 8), randn(8)]),
    "sub_scalar": (lambda x: x - 2.0, [randn(4, 8)]),
    "mul_bcast": (lambda x, y: x * y, [randn(4, 1), randn(1, 8)]),
    "div": (lambda x, y: x / y, [randn(4, 8), positive(4, 8)]),
    "pow": (lambda x: torch.pow(x, 3.0), [positive(4, 8)]),
    "maximum": (torch.maximum, [randn(4, 8), randn(4, 8)]),
    "mean_keepdim": (lambda x: x.mean(-1, keepdim=True), [randn(3, 4, 8)]),
    "sum_dims": (lambda x: x.sum((0, 2)), [randn(3, 4, 8)]),
    "amax": (lambda x: x.amax(1), [randn(3, 4, 8)]),
    "softmax_last": (lambda x: torch.softmax(x, -1), [randn(2, 4, 8)]),
    "softmax_mid": (lambda x: torch.softmax(x, 1), [randn(2, 4, 8)]),
    "rms_norm": (nn.RMSNorm(8, eps=1e-6), [randn(2, 4, 8)]),
    "rms_norm_2d": (lambda x: F.rms_norm(x, (4, 8), eps=1e-5), [randn(2, 4, 8)]),
    "layer_norm": (nn.LayerNorm(8), [randn(2, 4, 8)]),
    "linear": (nn.Linear(8, 6), [randn(2, 4, 8)]),
    "linear_nobias": (nn.Linear(8, 6, bias=False), [randn(4, 8)]),
    "matmul": (torch.matmul, [randn(4, 8), randn(8, 5)]),
    "matmul_batch_bcast": (torch.matmul, [randn(2, 1, 4, 5), randn(3, 5, 6)]),
    "matmul_vec_mat": (torch.matmul, [randn(5), randn(2, 5, 3)]),
    "matmul_mat_vec": (torch.matmul, [randn(2, 4, 5), randn(5)]),
    "relu_matmul_seed": (lambda x, b, w: torch.relu((x + b) @ w), [randn(16, 64), randn(64), randn(64, 16)]),
    "sdpa": (F.scaled_dot_product_attention, [randn(1, 2, 5, 8), randn(1, 2, 7, 8), randn(1, 2, 7, 4)]),
    "sdpa_causal": (
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
        [randn(2, 2, 6, 8), randn(2, 2, 6, 8), randn(2, 2, 6, 8)],
    ),
    "sdpa_gqa_causal_scale": (
        lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True, scale=0.3, enable_gqa=True),
        [randn(1, 4, 6, 8), randn(1, 2, 6, 8), randn(1, 2, 6, 8)],
    ),
    "sdpa_float_mask": (
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
        [randn(1, 2, 5, 8), randn(1, 2, 5, 8), randn(1, 2, 5, 8), randn(5, 5)],
    ),
    "sdpa_bool_input_mask": (  # every row attends to some key (PyTorch gives NaN where none)
        lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, attn_mask=m),
        [randn(1, 2, 5, 8), randn(1, 2, 7, 8), randn(1, 2, 7, 8), lambda: (torch.arange(5)[:, None] + torch.arange(7)) % 3 != 1],
    ),
    "reshape": (lambda x: x.reshape(4, 6, 2) * 2.0, [randn(2, 3, 8)]),
    "reshape_flatten": (lambda x: x.reshape(-1) * 2.0, [randn(2, 3, 4)]),
    "view_heads": (lambda x: x.view(2, 5, 4, 3).transpose(1, 2) * 2.0, [randn(2, 5, 12)]),
    "transpose": (lambda x: x.transpose(0, 2) * 2.0, [randn(2, 3, 4)]),
    "permute": (lambda x: x.permute(2, 0, 1) * 2.0, [randn(2, 3, 4)]),
    "unsqueeze": (lambda x, y: x.unsqueeze(1) + y, [randn(3, 4), randn(3, 5, 4)]),
    "expand": (lambda x: x.expand(3, 4, 5) * 2.0, [randn(4, 1)]),
    "slice": (lambda x: x[:, 1:7:2] * 2.0, [randn(3, 8)]),
    "cat": (lambda x, y: torch.cat([x, y], 1) * 2.0, [randn(2, 3), randn(2, 5)]),
    "embedding": (nn.Embedding(10, 4), [ids(10, 2, 3)]),
    "rotate_half": (
        lambda x: torch.cat((-x[..., 4:], x[..., :4]), dim=-1) * 2.0, [randn(2, 3, 8)]
    ),
}


def decompose(module):
    ctx = make_context()
    DecomposeTorch().apply(ctx, module)
    FoldIndexMaps().apply(ctx, module)
    module.verify()
    return module


@pytest.mark.parametrize("name", sorted(CASES))
def test_decomposition_matches_pytorch(name):
    fn, makers = CASES[name]
    module = fn if isinstance(fn, nn.Module) else Fn(fn)
    torch.manual_seed(0)
    program = capture(module, *[m() for m in makers], dtype=torch.float64)
    torch_ir = program.module.clone()
    tensor_ir = decompose(program.module)
    assert not any(op.name.startswith("torch.") for op in tensor_ir.walk())

    fresh = [m() for m in makers]
    params = [p.detach().numpy() for p in program.args[program.num_inputs :]]
    with torch.no_grad():
        ref = program.fn(*fresh)
    inputs = [x.numpy() for x in fresh] + params
    (out,) = exec_tensor.run(tensor_ir, inputs)
    assert out.shape == tuple(ref.shape)
    assert rel_err(out, ref.numpy()) < 1e-6
    if exec_torch is not None:
        (before,) = exec_torch.run(torch_ir, inputs)
        assert rel_err(out, before) < 1e-6


@pytest.mark.skipif(exec_torch is None, reason="needs dpl.interpreters.exec_torch")
def test_tinyllama_decoder_layer_matches_torch_level():
    """A whole HF decoder layer (rms_norm, linear, rotary, GQA causal SDPA, silu MLP) decomposes
    to tensor IR that computes what the torch-level IR computes."""
    pytest.importorskip("transformers")
    from dpl.frontend import hf

    module, inputs = hf.decoder_layer("tinyllama", seq=8, dtype=torch.float64)
    program = capture(module, *inputs, dtype=torch.float64)
    args = [a.detach().numpy() for a in program.args]
    (before,) = exec_torch.run(program.module, args)
    (after,) = exec_tensor.run(decompose(program.module), args)
    assert rel_err(after, before) < 1e-12


def test_as_strided_views_read_what_pytorch_reads():
    """Random strided views (sizes, strides including 0, offsets) of random contiguous shapes:
    the decomposed index map, on the tensor executor, reads exactly torch.as_strided's elements
    (the term-by-term floordiv / mod included)."""
    import random

    rng = random.Random(0)
    for _ in range(150):
        src = [rng.randint(1, 7) for _ in range(rng.randint(1, 3))]
        numel = math.prod(src)
        size = [rng.randint(1, 5) for _ in range(rng.randint(1, 3))]
        stride = [rng.choice([0, 1, 2, 3, 5, 7, rng.randint(1, numel)]) for _ in size]
        span = sum((n - 1) * s for n, s in zip(size, stride))
        if span >= numel:
            continue
        offset = rng.randint(0, numel - 1 - span)
        x = torch.randn(*src, dtype=torch.float64)
        program = capture(Fn(lambda v: torch.as_strided(v, size, stride, offset) * 2.0), x, dtype=torch.float64)
        (out,) = exec_tensor.run(decompose(program.module), [x.numpy()])
        ref = (torch.as_strided(x, size, stride, offset) * 2.0).numpy()
        assert (out == ref).all(), (src, size, stride, offset)
