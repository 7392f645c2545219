"""bench/mma_candidates.py without a GPU: the points it lists, one built in this process (its
grid, rounds, trips and model figures agree with the schedule), the table, and bad arguments."""

from __future__ import annotations

import argparse

import pytest
import torch

from dpl.bench import mma_candidates as mc


def test_splits_and_shapes():
    assert mc.splits_of(112, 4) == [1, 2, 4, 7, 8, 14, 16, 28]
    assert mc.splits_of(64, 8) == [1, 2, 4, 8]
    assert mc.splits_of(8, 8) == [1]
    assert mc.shapes_of("s128")[0] == (128, 3584, 3584) and len(mc.shapes_of("s128")) == len(mc.S128)
    assert mc.shapes_of("256x512x1024,s128")[0] == (256, 512, 1024)
    assert mc.main(["--shapes", "12x4", "--compile-only"]) == 2


def test_points_and_one_build():
    kernel = mc.linear_kernel(128, 256, 256)
    points = mc.points_of(kernel, 128, 256, 256, [(64, 64), (128, 128), (128, 96)], min_trips=4)
    assert points[0] == kernel.default  # the default first, then tile x split (128 x 96 divides nothing)
    tc = [(p["bm"], p["bn"], p["splits"]) for p in points[1:]]
    assert tc == [(64, 64, 1), (64, 64, 2), (128, 128, 1), (128, 128, 2)]
    assert all(p["tensor_cores"] for p in points[1:])
    out = mc.build(kernel.text, points[4], "3xtf32", None, ptxas=False)  # 128 x 128, split 2
    assert "error" not in out, out.get("error")
    assert out["grids"]["k_linear"] == "2x2x1" and out["blocks"] == 4 and out["trips"] == 4
    assert out["rounds"] == 1 and out["at_once"] == 132 and out["model_us"] > 0
    assert "kernel.launch" in out["kernel_ir"]
    unsplit = mc.build(kernel.text, points[3], "3xtf32", None, ptxas=False)
    assert unsplit["grids"]["k_linear"] == "2x1x1" and unsplit["trips"] == 8


def test_simt_only_shape_lists_the_default_alone():
    kernel = mc.linear_kernel(16, 64, 64)  # too small for the tensor cores
    assert mc.points_of(kernel, 16, 64, 64, [(64, 64)], 4) == [kernel.default]
    assert mc.describe(kernel.default).startswith("SIMT")


def test_simt_register_tiles_are_listed_split_and_unsplit():
    kernel = mc.linear_kernel(23, 256, 256)
    points = mc.points_of(kernel, 23, 256, 256, [], 4, simt=[(2, 8, 256), (4, 4, 256), (4, 4, 64)])
    simt = [(p["rows"], p["cols"], p["splits"]) for p in points[1:]]
    assert points[0] == kernel.default  # (SIMT 32 x 32: too small for the tensor cores)
    assert simt == [(2, 8, 0), (2, 8, 1), (4, 4, 0), (4, 4, 1), (4, 4, 0), (4, 4, 1)]
    assert [p["block_size"] for p in points[-2:]] == [64, 64]  # 4x4@64: 4 x 4 registers on 8 x 8 threads
    assert not any(p.get("tensor_cores") for p in points[1:])
    assert [mc.describe(p) for p in points[1:3]] == ["SIMT 32x128 splits=auto", "SIMT 32x128 splits=1"]
    assert mc.describe(points[-1]) == "SIMT 32x32 splits=1"
    assert mc.main(["--shapes", "16x64x64", "--simt", "2xq", "--compile-only"]) == 2


def test_table():
    shape = {"shape": [128, 3584, 3584], "cublas_us": 90.0, "cublas_tf32_us": 40.0, "rows": [
        {"point": "tc 128x128 splits=auto", "default": True, "grids": {"k_linear_init": "1792x1x1", "k_linear": "28x14x1"},
         "model_us": 44.7, "rounds": 3, "trips": 8, "step_us": 1.57, "us": 70.0, "err": 1.6e-7, "warm_us": 60.0},
        {"point": "tc 128x128 splits=4", "default": False, "grids": {"k_linear": "28x4x1"}, "model_us": 46.3,
         "rounds": 1, "trips": 28, "step_us": 1.57, "us": 50.0, "err": 1.6e-7, "warm_us": 45.0},
        {"point": "tc 64x256 splits=4", "default": False, "error": "boom"}]}  # fmt: skip
    text = mc.table(shape, gpu=True)
    lines = text.splitlines()
    first = next(i for i, line in enumerate(lines) if "splits=4 " in line)
    assert first < next(i for i, line in enumerate(lines) if line.startswith("* "))  # fastest first
    assert "1 x 28" in lines[first] and "1.79 (1.57)" in lines[first] and "1.80x" in lines[first]
    assert "error: boom" in text
    assert "best tc 128x128 splits=4 50.0 us (1.40x the default)" in text
    assert "model's first: tc 128x128 splits=auto" in text and "splits=4 45.0 us" in text


@pytest.mark.parametrize("bad", ["--tiles=64", "--shapes=axbxc"])
def test_bad_arguments(bad):
    assert mc.main([bad, "--compile-only"]) == 2


def test_timing_path_with_fakes(monkeypatch, capsys):
    """The GPU path on the CPU: cuBLAS first, every point measured (the default first), the
    default and the best again with L2 warm, a failing candidate kept as an error."""
    calls = []

    def measure(kernel_ir, x, w, ref, flush=True):
        calls.append(flush)
        if len(calls) == 3:
            raise RuntimeError("CUDA error: an illegal memory access was encountered")
        return {"err": 2e-7, "us": 10.0 + len(calls) if flush else 5.0}

    monkeypatch.setattr(mc, "DEVICE", "cpu")
    monkeypatch.setattr(mc, "measure", measure)
    monkeypatch.setattr(mc, "cublas", lambda x, w, tf32: (20.0 if tf32 else 40.0, x @ w.T))
    a = argparse.Namespace(min_trips=4, workers=1, precision="3xtf32", ptxas=False, simt_tiles=[])
    shape = mc.one_shape(a, 128, 256, 256, [(64, 64), (128, 128)], gpu=True)
    rows = shape["rows"]
    assert shape["cublas_us"] == 40.0 and shape["cublas_tf32_us"] == 20.0 and shape["cublas_err"] < 1e-6
    assert rows[0]["default"] and rows[0]["us"] == 11.0  # measured first
    assert sum("error" in r for r in rows) == 1 and "illegal memory access" in next(r["error"] for r in rows if "error" in r)
    assert calls.count(False) == 1 and rows[0]["warm_us"] == 5.0  # the default (here the best too), warm
    out = capsys.readouterr().out
    assert "summary 128x256x256: default" in out and "best" in out and "L2 warm" in out
    assert "kernel_ir" not in rows[1]


def test_child_process_returns_its_shape():
    a = argparse.Namespace(tiles="128x128", min_trips=4, precision="3xtf32", workers=1, ptxas=False, compile_only=True, simt="")
    shape = mc.child(a, 128, 256, 256)
    assert shape["shape"] == [128, 256, 256] and len(shape["rows"]) == 3  # the default, split 1 and 2
    assert all("model_us" in r for r in shape["rows"])
