"""The matmul precision choice (issue 16): `--precision` on dpl compile / run, `precision=` on
dpl.compile and schedule, and in the bench: the default takes the tensor cores (3xtf32) for
large matmuls and keeps SIMT for tiny or ragged ones, with -v saying why; bad choices are
one-line errors naming the choices."""

from __future__ import annotations

import subprocess
import sys

import pytest
import torch
from xdsl.passes import PassPipeline

from dpl.dialects import make_context
from dpl.frontend import capture_expression
from dpl.transforms import all_passes
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline, with_precision

LINEAR = "torch.nn.functional.linear(torch.randn(128, 512), torch.randn(256, 512), torch.randn(256))"


def _dpl(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "dpl.tools.dpl", *args], capture_output=True, text=True)


def _tile(expr: str, precision: str | None):
    prog = capture_expression(expr)
    module = prog.module.clone()
    run_pipeline(module, with_precision(IR_PIPELINES["tile"], precision))
    return module


def _dots(module) -> int:
    return sum(op.name == "mma.dot" for op in module.walk())


def test_default_is_3xtf32_on_tensor_cores():
    assert _dots(_tile(LINEAR, None)) == 1
    assert _dots(_tile(LINEAR, "tf32")) == 1
    assert _dots(_tile(LINEAR, "ieee")) == 0


def test_tiny_matmul_stays_simt_and_says_why(pass_log):
    module = _tile("torch.randn(16, 64) @ torch.randn(64, 16)", None)
    assert _dots(module) == 0
    assert "is too small or ragged" in pass_log.text


@pytest.mark.parametrize("args, message", [
    (["--precision", "bf16"], "dpl: error: schedule: unknown precision 'bf16' (choices: ieee, 3xtf32, tf32"),
    (["--precision", "tf32", "--pipeline", "schedule"], "dpl: error: give either --pipeline or --precision, not both"),
])
def test_bad_precision_is_one_line(args, message):
    r = _dpl("compile", "-c", LINEAR, "--ir", "tile", *args)
    assert r.returncode == 1
    assert r.stderr.strip() == message or r.stderr.strip().startswith(message)
    assert r.stderr.count("\n") == 1


def test_tensor_cores_need_a_target_that_has_them():
    with pytest.raises(ValueError, match=r"^schedule: precision 3xtf32 needs tensor cores \(sm_80 and later\), "
                                         r"target sm_75 has none \(choices there: ieee\)$"):
        PassPipeline.parse_spec(all_passes(), "schedule{target=sm_75 precision=3xtf32}")
    PassPipeline.parse_spec(all_passes(), "schedule{target=sm_75}")  # auto: ieee there


def test_dpl_compile_api_reports_its_precision():
    from dpl.driver.compile import compile as dpl_compile

    x, w = torch.randn(128, 512), torch.randn(256, 512)
    fn = torch.nn.functional.linear
    assert dpl_compile(fn, x, w).precision == "3xtf32"
    assert dpl_compile(fn, x, w, precision="tf32").precision == "tf32"
    assert dpl_compile(fn, x, w, precision="ieee").precision == "ieee"
    with pytest.raises(ValueError, match="unknown precision 'fp8'"):
        dpl_compile(fn, x, w, precision="fp8")


def test_gemm_sweep_table_and_shapes():
    from dpl.bench import gemm_sweep

    shapes = gemm_sweep.parse_shapes("squares,layers,128x256x64")
    assert (8192, 8192, 8192, "square 8192") in shapes and (128, 18944, 3584, "qwen2.5-7b gate/up s128") in shapes
    rows = [
        {"shape": [128, 256, 64], "label": "x", "variant": "cublas fp32", "precision": "ieee", "ms": 0.01, "tflops": 0.4, "err": 4e-7},
        {"shape": [128, 256, 64], "label": "x", "variant": "cublas tf32", "precision": "tf32", "ms": 0.005, "tflops": 0.8, "err": 3e-4},
        {"shape": [128, 256, 64], "label": "x", "variant": "dpl 3xtf32", "precision": "3xtf32", "ms": 0.004, "tflops": 1.0, "err": 2e-7},
        {"shape": [128, 256, 64], "label": "x", "variant": "dpl tf32", "error": "boom"},
    ]
    text = gemm_sweep.table(rows)
    assert "| x | 128x256x64 | dpl 3xtf32 | 3xtf32 | 0.0040 | 1.0 | 2.50 | 1.25 | 2.0e-07 | 0.50 |" in text
    assert "error: boom" in text
    assert gemm_sweep.main(["--precisions", "bf16"]) == 2


def test_sm80_targets_get_mma_sync_tiles(pass_log):
    prog = capture_expression(LINEAR)
    module = prog.module.clone()
    spec = IR_PIPELINES["tile"].replace("schedule", "schedule{target=sm_80}")
    run_pipeline(module, spec)
    dots = [op for op in module.walk() if op.name == "mma.dot"]
    assert len(dots) == 1 and dots[0].layout.data.value == "mma_sync"
    assert "mma_sync 128 x 128" in pass_log.text
