"""HF decoder layers (full hidden sizes, seq 16, float64) captured and run by exec_torch."""

import pytest
import torch

from dpl.interpreters import exec_torch
from dpl.frontend import capture, hf
from dpl.frontend.check import relative_error

# HF's RMSNorm upcasts to float32 inside the layer, so the PyTorch reference rounds to f32 once
# there; the captured program computes everything in float64. Both stay well inside 1e-6.
TOL = 1e-6


#: Qwen2.5-7B's layer at Qwen2.5-0.5B's sizes (the same architecture: GQA 7:1, head dim 64,
#: q/k/v biases): in float64 the full-size layer's weights alone are 1.9 GB in the executors.
SMALL = {"qwen2.5-7b": dict(hidden_size=896, num_attention_heads=14, num_key_value_heads=2, intermediate_size=4864)}


@pytest.mark.parametrize("name", ["tinyllama", "qwen2.5-7b"])
def test_decoder_layer(name):
    module, inputs = hf.decoder_layer(name, seq=16, dtype=torch.float64, **SMALL.get(name, {}))
    prog = capture(module, *inputs, dtype=torch.float64)
    text = str(prog.module)
    assert "torch.scaled_dot_product_attention" in text
    assert "is_causal = true" in text
    assert prog.arg_names[:3] == ["hidden_states", "cos", "sin"]
    assert "p_self_attn_q_proj_weight" in prog.arg_names
    assert relative_error(prog, exec_torch.run) < TOL


def test_whole_model_small():
    module, inputs = hf.model("tinyllama", num_layers=1, seq=8, dtype=torch.float64)
    prog = capture(module, *inputs, dtype=torch.float64)
    assert "torch.embedding" in str(prog.module)
    assert relative_error(prog, exec_torch.run) < TOL
