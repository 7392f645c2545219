"""fuse-launches keeps the program's meaning: every lit case, and PyTorch programs lowered with
the default pipeline, run on the kernel executor before and after the pass on the same random
inputs and give the same outputs; the fused CUDA compiles with nvcc; bad options are one-line
errors."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest
import torch
from xdsl.passes import PassPipeline

from dpl.interpreters import exec_kernel
from dpl.driver.compile import fused_parts, lower
from dpl.backend.cuda_printer import print_cuda
from dpl.interpreters.exec_loop import main_func
from dpl.dialects import kernel as K
from dpl.dialects import make_context
from dpl.frontend import capture
from dpl.dialects.parsing import parse_module
from dpl.transforms.pipelines import IR_PIPELINES
from dpl.transforms import all_passes
from dpl.transforms.kernel.fuse_launches import FuseLaunches, blocks_per_sm

ROOT = Path(__file__).resolve().parent.parent
LIT = ROOT / "test/lit/kernel/fuse-launches.mlir"
CASES = LIT.read_text().split("// -----")
NVCC = shutil.which("nvcc") or ("/usr/local/bin/nvcc" if os.path.exists("/usr/local/bin/nvcc") else None)


def _launches(module) -> list[K.LaunchOp]:
    return [op for op in module.walk() if isinstance(op, K.LaunchOp)]


def _fuse(module, spec: str = "fuse-launches"):
    fused = module.clone()
    PassPipeline.parse_spec(all_passes(), spec).apply(make_context(), fused)
    fused.verify()
    return fused


def _same_outputs(before, after, inputs) -> None:
    want = exec_kernel.run(before, inputs)
    got = exec_kernel.run(after, inputs)
    assert len(want) == len(got) >= 1
    for w, g in zip(want, got):
        assert not np.isnan(w).any() and not np.isnan(g).any(), "an output element was never written"
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6 * max(1.0, float(np.abs(w).max())))


@pytest.mark.parametrize("index", range(len(CASES)))
def test_lit_case_keeps_meaning(index: int):
    module = parse_module(make_context(), CASES[index], LIT.name)
    rng = np.random.default_rng(index)
    inputs = [
        rng.standard_normal(a.type.get_shape()).astype(np.float32)
        for a in main_func(module).body.block.args
    ]
    _same_outputs(module, _fuse(module), inputs)


class _Siblings(torch.nn.Module):
    """A norm feeding three projections, then a gated MLP: the decoder layer's sibling launches
    (q/k/v, gate/up) and their split-K zero fills at a size the executor runs quickly."""

    def __init__(self):
        super().__init__()
        self.norm = torch.nn.RMSNorm(64, eps=1e-6)
        self.q, self.k, self.v = (torch.nn.Linear(64, n, bias=False) for n in (64, 32, 32))
        self.gate, self.up = (torch.nn.Linear(64, 96, bias=False) for _ in range(2))

    def forward(self, x):
        h = self.norm(x)
        mlp = torch.nn.functional.silu(self.gate(h)) * self.up(h)
        return self.q(h), self.k(h) * self.v(h), mlp


def test_pytorch_program_keeps_meaning():
    torch.manual_seed(0)
    module = _Siblings()
    x = torch.randn(1, 16, 64)
    prog = capture(module, x, dtype=torch.float32)
    rest = IR_PIPELINES["kernel"][len(IR_PIPELINES["loop"]) + 1 :]
    assert rest.endswith(",fuse-launches,widen-indices")
    before, _ = lower(prog, rest[: -len(",fuse-launches,widen-indices")])
    after = _fuse(before)
    assert len(_launches(after)) < len(_launches(before)), "nothing fused"
    inputs = [x.numpy(), *[p.detach().numpy() for p in prog.args[prog.num_inputs :]]]
    _same_outputs(before, after, inputs)
    # The default pipeline ends with the pass, and the flops of a fused kernel are its parts'.
    fused, flops = lower(prog)
    for f in [op for op in fused.walk() if isinstance(op, K.KernelFuncOp)]:
        assert f.sym_name.data in flops
        if len(fused_parts(f)) > 1:
            assert f.sym_name.data == "__".join(fused_parts(f))


def test_window_zero_keeps_fills_in_place():
    """With window=0 a launch joins only the last group: @k_q_init no longer moves ahead of
    @k_p but joins it, and @k_q, which needs its fill, starts a group of its own."""
    module = parse_module(make_context(), CASES[2], LIT.name)
    fused = _fuse(module, "fuse-launches{window=0}")
    names = [op.callee.string_value() for op in _launches(fused)]
    assert names == ["k_p_init", "k_p__k_q_init", "k_q"]


def test_bad_window_is_one_line_error():
    module = parse_module(make_context(), CASES[0], LIT.name)
    with pytest.raises(ValueError, match="fuse-launches: option window must be at least 0, got -1"):
        FuseLaunches(window=-1).apply(make_context(), module)


def test_blocks_per_sm():
    h100, a100, rtx = K.TargetAttr("sm_90"), K.TargetAttr("sm_80"), K.TargetAttr("sm_120")
    assert blocks_per_sm(0, 256, h100) == 8  # threads
    assert blocks_per_sm(73984, 256, h100) == 3  # a 128x128 matmul's two stages
    assert blocks_per_sm(73984, 256, a100) == 2  # 164 KiB per SM
    assert blocks_per_sm(0, 256, rtx) == 6  # 1536 threads per SM
    assert blocks_per_sm(0, 32, h100) == 32  # the hardware's block limit


@pytest.mark.skipif(NVCC is None, reason="nvcc not found")
def test_fused_cuda_compiles(tmp_path: Path):
    sources = []
    for text in CASES:
        sources.append(print_cuda(_fuse(parse_module(make_context(), text, LIT.name))))
    cu = tmp_path / "fused.cu"
    cu.write_text("\n".join(sources))
    result = subprocess.run(
        [NVCC, "-arch=sm_90", "-c", "-o", str(tmp_path / "fused.o"), str(cu)],
        capture_output=True, text=True, timeout=600,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr


def test_declines_say_why(pass_log):
    module = parse_module(make_context(), CASES[3], LIT.name)
    _fuse(module)
    text = pass_log.text
    assert "@k_half starts a launch of its own (@k_wide: block [32, 1, 1] differs from [64, 1, 1])" in text
    assert (
        "@k_tiles starts a launch of its own (@k_wide: block [32, 1, 1] differs from [64, 1, 1]; "
        "@k_half: one stages tiles in shared memory, the other does not)" in text
    )
