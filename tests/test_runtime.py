"""CPU-only checks of the GPU runtime (backend/runtime.py): cache key, cache dir, one-line error
formatting, status checks, and the buffer plan read from a manifest. No GPU or NVRTC needed."""

from __future__ import annotations

from pathlib import Path

import pytest
import torch

from dpl.backend import runtime as rt
from dpl.backend.cuda_printer import print_manifest
from dpl.frontend import capture_expression
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

ROOT = Path(__file__).resolve().parent.parent
ROUNDTRIP = ROOT / "test/lit/dialects/kernel/roundtrip.mlir"


def test_cache_key_is_stable_and_sensitive():
    base = rt.cache_key("src", "sm_90", ("-arch=sm_90", "--std=c++17"), "13.0")
    assert base == rt.cache_key("src", "sm_90", ("-arch=sm_90", "--std=c++17"), "13.0")
    assert len(base) == 64 and int(base, 16) >= 0
    others = {
        rt.cache_key("src ", "sm_90", ("-arch=sm_90", "--std=c++17"), "13.0"),
        rt.cache_key("src", "sm_80", ("-arch=sm_90", "--std=c++17"), "13.0"),
        rt.cache_key("src", "sm_90", ("-arch=sm_90",), "13.0"),
        rt.cache_key("src", "sm_90", ("-arch=sm_90", "--std=c++17"), "12.8"),
        # no ambiguity from concatenation
        rt.cache_key("srcsm_90", "", ("-arch=sm_90", "--std=c++17"), "13.0"),
    }
    assert base not in others and len(others) == 5


def test_cache_dir_env(monkeypatch, tmp_path):
    monkeypatch.setenv("DPL_CACHE_DIR", str(tmp_path / "c"))
    assert rt.cache_dir() == tmp_path / "c"
    monkeypatch.delenv("DPL_CACHE_DIR")
    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    assert rt.cache_dir() == Path.home() / ".cache" / "dpl"
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert rt.cache_dir() == tmp_path / "xdg" / "dpl"


def test_format_error_one_line():
    msg = rt.format_error("cuLaunchKernel", "k_rms_norm", "CUDA_ERROR_X", "bad\nthing\n")
    assert msg == "cuLaunchKernel failed for kernel 'k_rms_norm': CUDA_ERROR_X: bad | thing"
    msg = rt.format_error("nvrtcCompileProgram", ["a", "b"], "E")
    assert msg == "nvrtcCompileProgram failed for kernels 'a', 'b': E"
    assert rt.fold_lines("x" * 5000, limit=100).endswith("...")


def test_status_checks_raise_named_one_line_errors():
    pytest.importorskip("cuda.bindings")
    from cuda.bindings import driver, nvrtc

    ok = (driver.CUresult.CUDA_SUCCESS, 7)
    assert rt._check_driver(ok, "cuX", "k") == 7
    with pytest.raises(rt.CudaRuntimeError) as info:
        rt._check_driver((driver.CUresult.CUDA_ERROR_INVALID_VALUE,), "cuLaunchKernel", "k_relu")
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith("cuLaunchKernel failed for kernel 'k_relu': CUDA_ERROR_INVALID_VALUE (1)")

    log = "kernels.cu(3): error: identifier \"foo\" is undefined\n\n1 error detected\n"
    with pytest.raises(rt.CudaRuntimeError) as info:
        rt._check_nvrtc((nvrtc.nvrtcResult.NVRTC_ERROR_COMPILATION,), "nvrtcCompileProgram (sm_90)",
                        ["k_rms_norm"], log)  # fmt: skip
    msg = str(info.value)
    assert "\n" not in msg
    assert msg.startswith("nvrtcCompileProgram (sm_90) failed for kernel 'k_rms_norm': NVRTC_ERROR_COMPILATION")
    assert 'identifier "foo" is undefined | 1 error detected' in msg
    assert info.value.log == log


def test_program_plan_from_kernel_ir():
    prog = rt.Program.from_text(ROUNDTRIP.read_text(), str(ROUNDTRIP), kernels=["k_relu_reduce"])
    assert prog.kernel_names == ["k_relu_reduce"]
    assert prog.inputs == ["bias", "x", "w"] and prog.outputs == ["relu"]
    k = prog.kernels[0]
    assert k.grid == (1, 1, 1) and k.block == (64, 1, 1) and k.smem_bytes == 0
    assert 'extern "C" __global__' in prog.source and "k_rms_norm" not in prog.source


def test_program_multi_kernel_plan():
    manifest = {"kernels": [
        {"name": "k1", "grid": [1, 1, 1], "block": [32, 1, 1], "smem_bytes": 0,
         "args": [{"name": "a", "shape": [4], "dtype": "float32", "role": "in"},
                  {"name": "t", "shape": [4], "dtype": "float32", "role": "out"}]},
        {"name": "k2", "grid": [1, 1, 1], "block": [32, 1, 1], "smem_bytes": 0,
         "args": [{"name": "t", "shape": [4], "dtype": "float32", "role": "in"},
                  {"name": "n", "shape": [], "dtype": "int32", "role": "in"},
                  {"name": "o", "shape": [4], "dtype": "float32", "role": "out"}]},
    ]}  # fmt: skip
    prog = rt.Program("// no source", manifest)
    assert prog.inputs == ["a", "n"] and prog.outputs == ["t", "o"]
    assert prog.buffers["n"].scalar and not prog.buffers["t"].is_input


def test_program_buffer_conflict_is_one_line():
    with pytest.raises(ValueError) as info:
        rt.Program.from_text(ROUNDTRIP.read_text(), str(ROUNDTRIP))
    msg = str(info.value)
    assert "\n" not in msg
    assert "kernel 'k_relu_reduce': buffer 'x' is [16, 64] float32 here but [1, 32, 2048]" in msg


def test_unknown_kernel():
    with pytest.raises(ValueError, match="no kernel.func named k_nope"):
        rt.Program.from_text(ROUNDTRIP.read_text(), str(ROUNDTRIP), kernels=["k_nope"])


def test_a_view_argument_binds_its_whole_buffer():
    """A linear over 2 x 5 rows takes x and y as 10-row views (collapse-matmul-axes): the
    manifest gives each view's `buffer_shape`, the shape a caller's tensor has, and the program's
    buffers take it (the kernel reads the same memory under the view's shape)."""
    prog = capture_expression("torch.nn.functional.linear(torch.randn(2,5,16), torch.randn(24,16))", dtype=torch.float32)
    run_pipeline(prog.module, IR_PIPELINES["kernel"])
    manifest = print_manifest(prog.module)
    (x,) = [a for k in manifest["kernels"] for a in k["args"] if a["shape"] == [10, 16]]
    assert x["buffer_shape"] == [2, 5, 16]
    program = rt.Program("// no source", manifest)
    assert program.buffers[x["name"]].shape == (2, 5, 16)
    assert sorted(b.shape for b in program.buffers.values()) == [(2, 5, 16), (2, 5, 24), (24, 16)]
