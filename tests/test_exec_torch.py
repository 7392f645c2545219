"""The torch-level NumPy executor agrees with PyTorch (float64) for every torch-dialect op."""

import pytest
import torch

from dpl.interpreters import exec_torch
from dpl.frontend import capture, capture_expression
from dpl.frontend.check import relative_error

TOL = 1e-6

# One expression per op (and per capture path: scalars, broadcasting, negative dims, ...).
EXPRESSIONS = {
    "neg": "-torch.randn(4, 8)",
    "relu": "torch.relu(torch.randn(4, 8))",
    "silu": "F.silu(torch.randn(4, 8))",
    "sigmoid": "torch.sigmoid(torch.randn(4, 8))",
    "exp": "torch.exp(torch.randn(4, 8))",
    "tanh": "torch.tanh(torch.randn(4, 8))",
    "rsqrt": "torch.rsqrt(torch.rand(4, 8) + 0.5)",
    "sqrt": "torch.sqrt(torch.rand(4, 8))",
    "reciprocal": "torch.reciprocal(torch.rand(4, 8) + 0.5)",
    "cos": "torch.cos(torch.randn(4, 8))",
    "sin": "torch.sin(torch.randn(4, 8))",
    "gelu": "F.gelu(torch.randn(4, 8))",
    "gelu_tanh": "F.gelu(torch.randn(4, 8), approximate='tanh')",
    "add_broadcast": "torch.randn(4, 8) + torch.randn(8)",
    "add_alpha": "torch.add(torch.randn(4, 8), torch.randn(4, 1), alpha=2.5)",
    "sub_scalar": "torch.randn(4, 8) - 3.0",
    "rsub": "1 - torch.randn(4, 8)",
    "mul": "torch.randn(2, 1, 8) * torch.randn(3, 1)",
    "div": "torch.randn(4, 8) / (torch.rand(8) + 0.5)",
    "pow_scalar": "torch.randn(4, 8) ** 2",
    "pow_tensor": "torch.pow(torch.rand(4, 8) + 0.5, torch.randn(4, 8))",
    "maximum": "torch.maximum(torch.randn(4, 8), torch.randn(8))",
    "mean": "torch.randn(2, 4, 8).mean(-1, keepdim=True)",
    "mean_all": "torch.randn(2, 4, 8).mean()",
    "sum": "torch.randn(2, 4, 8).sum(dim=(0, 2))",
    "amax": "torch.amax(torch.randn(2, 4, 8), dim=1)",
    "softmax": "torch.softmax(torch.randn(2, 4, 8), dim=-1)",
    "softmax_module": "torch.nn.Softmax(dim=1)(torch.randn(2, 4, 8))",
    "rms_norm": "torch.nn.RMSNorm(8, eps=1e-5)(torch.randn(2, 4, 8))",
    "rms_norm_noweight": "F.rms_norm(torch.randn(2, 4, 8), (4, 8))",
    "layer_norm": "torch.nn.LayerNorm(8)(torch.randn(2, 4, 8))",
    "layer_norm_noaffine": "F.layer_norm(torch.randn(2, 4, 8), (4, 8))",
    "linear": "torch.nn.Linear(8, 5)(torch.randn(2, 4, 8))",
    "linear_nobias": "torch.nn.Linear(8, 5, bias=False)(torch.randn(4, 8))",
    "matmul": "torch.matmul(torch.randn(4, 8), torch.randn(8, 3))",
    "matmul_batch": "torch.matmul(torch.randn(2, 1, 4, 8), torch.randn(3, 8, 5))",
    "matmul_vec": "torch.matmul(torch.randn(8), torch.randn(2, 8, 3))",
    "bmm": "torch.bmm(torch.randn(2, 4, 8), torch.randn(2, 8, 3))",
    "sdpa": "F.scaled_dot_product_attention(torch.randn(1, 2, 6, 8), torch.randn(1, 2, 6, 8), torch.randn(1, 2, 6, 8))",
    "sdpa_causal": "F.scaled_dot_product_attention(torch.randn(1, 2, 6, 8), torch.randn(1, 2, 6, 8), torch.randn(1, 2, 6, 4), is_causal=True)",
    "sdpa_mask_scale": "F.scaled_dot_product_attention(torch.randn(2, 6, 8), torch.randn(2, 5, 8), torch.randn(2, 5, 8), attn_mask=torch.randn(6, 5), scale=0.3)",
    "sdpa_gqa": "F.scaled_dot_product_attention(torch.randn(1, 4, 6, 8), torch.randn(1, 2, 6, 8), torch.randn(1, 2, 6, 8), is_causal=True, enable_gqa=True)",
    "reshape": "torch.randn(4, 8).reshape(2, -1, 4)",
    "view_flatten": "torch.randn(2, 4, 8).view(8, 8).flatten()",
    "transpose": "torch.randn(2, 4, 8).transpose(-1, 0)",
    "t": "torch.randn(4, 8).t() + 0",
    "permute": "torch.randn(2, 4, 8).permute(2, 0, 1)",
    "unsqueeze": "torch.randn(4, 8).unsqueeze(-1)",
    "squeeze": "torch.randn(4, 1, 8).squeeze(1)",
    "expand": "torch.randn(4, 1).expand(2, 4, 8)",
    "slice": "torch.randn(4, 8)[1:-1, ::3]",
    "select": "torch.randn(4, 8)[:, -2]",
    "cat": "torch.cat([torch.randn(4, 3), torch.randn(4, 5)], dim=-1)",
    "embedding": "torch.nn.Embedding(10, 8)(torch.randint(0, 10, (2, 5)))",
    "to_dtype": "(torch.randn(4, 8) * 10).to(torch.int32).to(torch.float64)",
    "rotate_half": "(lambda x: torch.cat((-x[..., 4:], x[..., :4]), dim=-1))(torch.randn(2, 3, 8))",
    "repeat_kv": "torch.randn(1, 2, 6, 8)[:, :, None, :, :].expand(1, 2, 3, 6, 8).reshape(1, 6, 6, 8)",
    "constant_fold": "torch.randn(4, 8) * torch.arange(8)",
    "tuple_out": "(lambda x: (x.exp(), x.sin()))(torch.randn(3, 5))",
}


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_expression(name):
    prog = capture_expression(EXPRESSIONS[name], dtype=torch.float64)
    prog.module.verify()
    assert relative_error(prog, exec_torch.run) < TOL


class Mlp(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.up = torch.nn.Linear(16, 32)
        self.down = torch.nn.Linear(32, 16)
        self.norm = torch.nn.LayerNorm(16)

    def forward(self, x):
        return self.norm(x + self.down(F_gelu(self.up(x))))


def F_gelu(x):
    return torch.nn.functional.gelu(x)


def test_module():
    prog = capture(Mlp(), torch.randn(2, 5, 16), dtype=torch.float64)
    assert prog.arg_names[0] == "x" and "p_up_weight" in prog.arg_names
    assert relative_error(prog, exec_torch.run) < TOL


SEEDS = [
    "torch.nn.RMSNorm(2048)(torch.randn(1,32,2048))",
    "torch.nn.Softmax(dim=-1)(torch.randn(1,28,128,128))",
    "torch.relu(torch.matmul(torch.randn(16,64) + torch.randn(64), torch.randn(64,16)))",
]


@pytest.mark.parametrize("expr", SEEDS)
def test_seed(expr):
    prog = capture_expression(expr, dtype=torch.float64)
    assert relative_error(prog, exec_torch.run) < TOL
