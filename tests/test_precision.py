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

# A linear the tensor cores take by default (at 128 rows its 8 SIMT tiles, split into 8 K slices of
# 2 trips by split-matmul-k's sparse-tile, model faster than the tensor cores)
#: (512 x 512 -> 256 races SIMT at the wave models and takes it: schedule.race_waves)
LINEAR = "torch.nn.functional.linear(torch.randn(512, 1024), torch.randn(1024, 1024), torch.randn(1024))"


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
    module = _tile("torch.randn(8, 64) @ torch.randn(64, 8)", None)
    assert _dots(module) == 0
    assert "is too small (M, N >= 16, K >= 32)" in pass_log.text


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

    x, w = torch.randn(512, 1024), torch.randn(1024, 1024)  # (LINEAR)
    fn = torch.nn.functional.linear
    assert dpl_compile(fn, x, w).precision == "3xtf32"
    assert dpl_compile(fn, x, w, precision="tf32").precision == "tf32"
    assert dpl_compile(fn, x, w, precision="ieee").precision == "ieee"
    with pytest.raises(ValueError, match="unknown precision 'fp8'"):
        dpl_compile(fn, x, w, precision="fp8")


def test_gemm_sweep_table_and_shapes():
    from dpl.bench import gemm_sweep

    shapes = gemm_sweep.parse_shapes("linears,odd,128x256x64")
    assert (128, 3584, 3584, "linear M=128") in shapes and (2048, 3584, 3584, "linear M=2048") in shapes
    assert (100, 3584, 3584, "ragged M") in shapes and shapes[-1] == (128, 256, 64, "128x256x64")
    groups = gemm_sweep.parse_groups("squares,proj,odd,1024x1024x1024")
    assert [g[:3] for g in groups[:4]] == [(n, n, n) for n in (1024, 2048, 4096, 8192)]
    assert len({g[:3] for g in groups}) == len(groups)  # TinyLlama's down at s128 is in proj and odd: once
    assert ("tinyllama down s128" in [g[3] for g in groups]) and not groups[0][4] and groups[-1][4]
    rows = [
        {"label": "x", "shape": [128, 256, 64], "cublas_err": 4e-7, "precision": "3xtf32", "err": 6e-7,
         "kernels": ["k_red 2x1x1"], "dpl_ms": 0.004, "eager_ms": 0.01, "compile_ms": 0.008,
         "tf32_ms": 0.002, "tf32_err": 1.2e-4},
        {"label": "y", "shape": [128, 256, 64], "cublas_err": 4e-7, "precision": "3xtf32", "err": 9e-7,
         "kernels": ["k_red 2x1x1"], "dpl_ms": 0.004},
        {"label": "z", "shape": [128, 256, 64], "cublas_err": 4e-7, "error": "boom"},
    ]
    text = gemm_sweep.linear_table(rows)
    assert ("| x | 128x256x64 | 3xtf32, 1 kernels: k_red 2x1x1 | 0.0040 | 0.0100 | 0.0020 | 0.0080 | "
            "1.0 / 0.4 / 2.1 | 2.50x | 2.00x | 6.0e-07 | 4.0e-07 | 1.2e-04 | 1.50 | yes |") in text
    assert ("| y | 128x256x64 | 3xtf32, 1 kernels: k_red 2x1x1 | 0.0040 | - | - | - | 1.0 / - / - | - | - | "
            "9.0e-07 | 4.0e-07 | - | 2.25 | NO |") in text
    assert "error: boom" in text
    assert gemm_sweep.tflops(rows[0], "dpl_ms") == pytest.approx(2 * 128 * 256 * 64 / 4e-6 / 1e12)
    assert gemm_sweep.ok({"precision": "tf32", "err": 5e-4, "cublas_err": 4e-7})
    assert gemm_sweep.main(["--precision", "bf16"]) == 2
    assert gemm_sweep.main(["--shapes", "squares,12x4"]) == 2


def test_gemm_sweep_chart(tmp_path):
    """The chart is optional: without matplotlib nothing is written; with it, a PNG of the rows."""
    from dpl.bench import gemm_sweep

    doc = {"device": "X", "date": "d", "linears": [
        {"label": "a", "shape": [64, 64, 64], "precision": "3xtf32", "dpl_ms": 0.01, "eager_ms": 0.02,
         "tf32_ms": 0.005},
        {"label": "b", "shape": [64, 64, 64], "error": "boom"}]}  # fmt: skip
    png = tmp_path / "c.png"
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        assert gemm_sweep.chart(doc, str(png)) is None and not png.exists()
        return
    assert gemm_sweep.chart(doc, str(png)) == str(png) and png.read_bytes()[:4] == b"\x89PNG"


def test_sm80_targets_get_mma_sync_tiles(pass_log):
    # 512 x 1024 x 1024 (LINEAR's 128 x 256 x 512 now models faster as SIMT with a short-K split)
    prog = capture_expression("torch.nn.functional.linear(torch.randn(512, 1024), torch.randn(1024, 1024), torch.randn(1024))")
    module = prog.module.clone()
    spec = IR_PIPELINES["tile"].replace("schedule", "schedule{target=sm_80}")
    run_pipeline(module, spec)
    dots = [op for op in module.walk() if op.name == "mma.dot"]
    assert len(dots) == 1 and dots[0].layout.data.value == "mma_sync"
    assert "mma_sync 128 x 128" in pass_log.text


def test_short_m_projection_splits_k_on_tensor_cores_and_says_why(pass_log):
    """M = 128 against 132 SMs: the tensor-core tile grid alone underfills the GPU, so the chosen
    plan splits K; -v lists every candidate's modeled time, SIMT's included."""
    module = _tile("torch.nn.functional.linear(torch.randn(128, 1024), torch.randn(1024, 1024))", None)
    assert _dots(module) == 1
    tiles = [op for op in module.walk() if op.name == "tile.tile"]
    assert any(v.name_hint == "ks" and e > 1 for t in tiles for v, e, _ in t.axes)
    line = next(x for x in pass_log.text.splitlines() if "is matmul, wgmma" in x)
    assert ", split " in line and "SIMT 64 x 64" in line and "modeled" in line


def test_a_product_tensorize_declines_falls_back_to_simt(pass_log):
    """x[i, k] * w[j, k] * s[i, j] summed over k (a factor mixing M and N) is no MMA: the SIMT
    schedule takes it (register tiles), and -v says why (the lit case schedule-mma.mlir's)."""
    from pathlib import Path

    from dpl.dialects.parsing import LocatingParser

    cases = (Path(__file__).parent.parent / "test/lit/tile/schedule-mma.mlir").read_text().split("// -----")
    (text,) = [c for c in cases if "loop.kernel @k_mixed" in c]
    module = LocatingParser(make_context(), text, "<test>").parse_module()
    PassPipeline.parse_spec(all_passes(), "schedule").apply(make_context(), module)
    assert _dots(module) == 0
    assert any(k.value == "cell" for op in module.walk() if op.name == "tile.tile" for _, _, k in op.axes)
    assert "@k_mixed: no tensor cores: tensorize-matmul declines it: a factor of the product" in pass_log.text
