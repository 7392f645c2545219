"""`dpl tune` on the GPU: a norm and a projection tuned for real (GpuMeasurer: each kernel alone,
checked against the default schedule, timed with L2 flushed), the picks confirmed and never
slower than the default, the tuned program still matching PyTorch, and a second run served
from the cache. Skipped where no CUDA GPU is present."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from dpl.driver.compile import check_parity, compile_program
from dpl.driver.tune import GpuMeasurer, program_kernels, tune
from dpl.driver.tune_cache import TuneCache
from dpl.frontend import capture_expression
from dpl.transforms.tile.schedule import TENSOR_CORES

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU"),
]

EXPR = "torch.nn.functional.linear(torch.nn.RMSNorm(1024)(torch.randn(1,64,1024)), torch.randn(2048,1024))"


def test_tune_on_the_gpu(tmp_path: Path, monkeypatch):
    monkeypatch.setenv("DPL_CACHE_DIR", str(tmp_path))
    prog = capture_expression(EXPR)
    kernels = program_kernels(prog.module)
    measurer = GpuMeasurer()
    try:
        results = tune(kernels, TuneCache(), measurer, trials=10, budget_s=120)
        again = tune(kernels, TuneCache(), measurer, trials=10, budget_s=60)
    finally:
        measurer.close()
    for r in results:
        assert r.default_us and r.best_us and r.confirmed, r
        assert r.best_us <= r.default_us
        assert r.measured >= 2
    assert all(r.cached for r in again) and sum(r.measured for r in again) == 0
    # the projection suits the tensor cores: both sides of the dimension were measured (wgmma
    # kernels built for sm_90a)
    (mm,) = [k for k in kernels if k.cls == "matmul"]
    assert mm.default.get(TENSOR_CORES) is True
    measured = [t for t in TuneCache().trials(mm.key, measurer.device) if t.us is not None]
    assert {bool(t.point.get(TENSOR_CORES)) for t in measured} == {False, True}, measured
    tuned = compile_program(prog)
    assert check_parity(tuned, prog).ok
