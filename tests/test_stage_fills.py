"""Stage fills of rows that are not a power of two copies long (stage_fills.fill_plan): which
plan each stage takes, and programs whose stages take each (matmuls with a ragged whole K on SIMT
tiles: by rows, of floats or float4s, split once, split once per turn; a LayerNorm over a
contiguous slab that merge-dims leaves 2-D: flat) run on the kernel executor against float64 and compile with nvcc."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest
import torch

from dpl.backend.cuda_printer import print_cuda
from dpl.frontend import capture
from dpl.interpreters import exec_kernel
from dpl.transforms.kernel.stage_fills import fill_plan, row_lanes
from dpl.transforms.loop.merge_dims import MergeDims
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline

sys.path.insert(0, str(Path(__file__).resolve().parent))
from frontend_ops import module_of  # noqa: E402


def test_fill_plan():
    assert fill_plan(64, 116, 256, False) == "rows"  # 32 copies a thread against 29: lanes 116-127 idle
    assert row_lanes(64, 116, 256) == 32
    assert fill_plan(64, 36, 256, False) == "split"  # by rows 16 (64 lanes, 28 idle) against 9
    assert fill_plan(64, 32, 256, False) == "flat"  # a power of two: shifts and masks already
    assert fill_plan(32, 175, 512, True) == "flat"  # contiguous: the copy number is the offset
    assert fill_plan(1, 3001, 256, False) == "flat"  # one row: the copy number is the column
    assert fill_plan(2, 37, 256, False) == "flat"  # one copy a thread: each thread splits once anyway
    assert fill_plan(64, 37, 1, False) == "flat"  # one thread


SIMT = "schedule{sms=1 tensor-cores=false repack=false},"
PROGRAMS = [  # (fn, input shapes, SIMT whole-K schedule, in the kernel IR)
    (lambda a, b: a @ b.t(), [(67, 45), (45, 45)], True, ("_smem_rj",)),  # K = 45, rows of 52: by rows
    # K = 116, aligned: rows of 29 float4s by rows, 16 bytes a copy
    (lambda a, b: a @ b.t(), [(67, 116), (45, 116)], True, ("_smem_rj", "bytes 16")),
    # tt, K = 29: rows of 32 (A: flat), 29 (B: by rows)
    (lambda a, b: a.t() @ b.t(), [(29, 50), (61, 29)], True, ("_smem_rj",)),
    (lambda a, b: a @ b.t(), [(67, 33), (45, 33)], True, ("_smem_wrap",)),  # rows of 36: split once
    # nt, K = 37: rows of 40, past SPLIT_ONCE_TRIPS trips: split once per turn
    (lambda a, b: torch.bmm(a, b.transpose(1, 2)), [(2, 70, 37), (2, 45, 37)], True, ("_smem_first",)),
    # a slab of (8, 75), contiguous: flat (merge-dims off: on, the row is one dim of 600)
    (lambda x: torch.nn.functional.layer_norm(x, (8, 75)), [(4, 8, 75)], False, ("_smem_flat",)),
]


@pytest.mark.parametrize("fn,shapes,simt,markers", PROGRAMS)
def test_fills_keep_meaning(fn, shapes, simt, markers, nvcc_compile, monkeypatch):
    if "_smem_flat" in markers:
        monkeypatch.setattr(MergeDims, "apply", lambda self, ctx, op: None)
    gen = torch.Generator().manual_seed(5)
    xs = [torch.randn(*s, generator=gen) * 3 - 1 for s in shapes]
    module = capture(module_of(fn), *xs).module.clone()
    pipeline = IR_PIPELINES["kernel"]
    run_pipeline(module, pipeline.replace("schedule,", SIMT) if simt else pipeline)
    assert all(m in str(module) for m in markers)
    out = exec_kernel.run(module, [x.double().numpy().copy() for x in xs])[0]
    ref = fn(*[x.double() for x in xs]).numpy()
    assert float(np.linalg.norm(out - ref) / np.linalg.norm(ref)) < 1e-6
    nvcc_compile(print_cuda(module))
