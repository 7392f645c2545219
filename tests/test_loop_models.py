"""End to end on the CPU down to the loop level: capture in float64, decompose, lower, fuse, run
the loop executor and compare with PyTorch (relative error < 1e-6) on fresh random inputs."""

import pytest
import torch
from xdsl.passes import PassPipeline

from dpl.interpreters import exec_loop
from dpl.dialects import loop, make_context
from dpl.frontend import capture, capture_expression
from dpl.frontend.check import relative_error
from dpl.frontend.hf import decoder_layer
from dpl.transforms import all_passes
from test_exec_torch import EXPRESSIONS, SEEDS

TOL = 1e-6
TO_LOOPS = "decompose-torch,fold-index-maps,lower-to-loops,fuse-loops"


def to_loops(prog):
    module = prog.module.clone()
    PassPipeline.parse_spec(all_passes(), TO_LOOPS).apply(make_context(), module)
    module.verify()
    return module


def loop_error(prog) -> tuple[float, int]:
    module = to_loops(prog)
    kernels = sum(isinstance(op, loop.KernelOp) for op in module.walk())
    return relative_error(prog, lambda _m, arrays: exec_loop.run(module, arrays)), kernels


#: Qwen2.5-7B's layer at Qwen2.5-0.5B's sizes (the same architecture: GQA 7:1, head dim 64,
#: q/k/v biases): in float64 the full-size layer's weights alone are 1.9 GB in the executors.
SMALL = {"qwen2.5-7b": dict(hidden_size=896, num_attention_heads=14, num_key_value_heads=2, intermediate_size=4864)}


@pytest.mark.parametrize("name", sorted(EXPRESSIONS))
def test_op(name):
    err, _ = loop_error(capture_expression(EXPRESSIONS[name], dtype=torch.float64))
    assert err < TOL


@pytest.mark.parametrize("expr", SEEDS)
def test_seed_is_one_kernel(expr):
    err, kernels = loop_error(capture_expression(expr, dtype=torch.float64))
    assert err < TOL
    assert kernels == 1


@pytest.mark.parametrize("name", ["tinyllama", "qwen2.5-7b"])
def test_decoder_layer(name):
    module, inputs = decoder_layer(name, seq=16, dtype=torch.float64, **SMALL.get(name, {}))
    err, kernels = loop_error(capture(module, *inputs))
    assert err < TOL
    assert kernels <= 16, f"{kernels} kernels after fusion"
