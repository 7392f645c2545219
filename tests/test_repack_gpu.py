"""GPU check of repack-operands (issue 13): matmuls whose operand rows are not a multiple of 4
floats, compiled by dpl.compile's default schedule (the copies into aligned buffers where the
model takes them), run on random inputs with the output poisoned, against float64: fp32-level
error and at most twice PyTorch fp32's. Prints the schedule's kernels. Skipped without a GPU.

    python3 -m pytest -q -m gpu tests/test_repack_gpu.py -s
"""

from __future__ import annotations

import re

import pytest
import torch

pytestmark = [
    pytest.mark.gpu,
    pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU"),
]

CASES = {  # (a's stored shape, b's stored shape, which are transposed)
    "nn_3079x4081x257": ((3079, 257), (257, 4081), "nn"),
    "nt_4544x239x271": ((4544, 271), (239, 271), "nt"),
    "tt_512x2741x79": ((79, 512), (2741, 79), "tt"),
    "bmm_tn_b36_433x256x32": ((36, 32, 433), (36, 32, 256), "tn"),
    "linear_853x5669to1536": ((853, 5669), (1536, 5669), "nt"),
}


def _matmul(trans: str):
    def f(a, b):
        a = a.transpose(-1, -2) if trans[0] == "t" else a
        b = b.transpose(-1, -2) if trans[1] == "t" else b
        return a @ b

    return f


@pytest.mark.parametrize("name", list(CASES))
def test_misaligned_matmul_on_gpu(name: str):
    from dpl.driver.compile import compile as dpl_compile

    sa, sb, trans = CASES[name]
    g = torch.Generator().manual_seed(len(name))
    a, b = torch.randn(*sa, generator=g), torch.randn(*sb, generator=g)
    f = _matmul(trans)
    c = dpl_compile(f, a, b, tune_cache=False)
    print(name, re.findall(r"void (\w+)\(", c.cuda))
    ag, bg = a.cuda(), b.cuda()
    out = c(ag, bg, poison=True)
    ref = f(ag.double(), bg.double())
    eager = f(ag, bg)
    err = float((out.double() - ref).norm() / ref.norm())
    eager_err = float((eager.double() - ref).norm() / ref.norm())
    assert torch.isfinite(out).all()
    assert err < 1e-4 and err <= 2 * eager_err + 1e-7, (err, eager_err)


def _ms(fn, *args, reps: int = 20) -> float:
    """Mean GPU time of one call of `fn(*args)`, after a warm-up (CUDA events)."""
    for _ in range(3):
        fn(*args)
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn(*args)
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / reps


def test_repack_on_and_off_on_gpu():
    """Each case with the schedule's own choice, with the copies pinned off (`schedule{repack=
    false}`: the old element-wise plans) and on (`repack=true`), all correct; prints the times
    (ms) and eager's, the figures to check ELEMENT_TRIP and the copies' cost against."""
    from dpl.driver.compile import compile as dpl_compile
    from dpl.transforms.pipelines import kernel_schedule

    rows = []
    for name, (sa, sb, trans) in CASES.items():
        g = torch.Generator().manual_seed(len(name))
        a, b = torch.randn(*sa, generator=g), torch.randn(*sb, generator=g)
        f = _matmul(trans)
        ag, bg = a.cuda(), b.cuda()
        ref = f(ag.double(), bg.double())
        times = []
        for pin in ("", "{repack=false}", "{repack=true}"):
            spec = kernel_schedule(None).replace(",schedule,", f",schedule{pin},", 1)
            c = dpl_compile(f, a, b, pipeline=spec, tune_cache=False)
            out = c(ag, bg, poison=True)
            err = float((out.double() - ref).norm() / ref.norm())
            assert err < 1e-4, (name, pin, err)
            times.append(_ms(c, ag, bg))
        rows.append((name, *times, _ms(f, ag, bg)))
    print(f"\n{'case':26s} {'dpl':>8s} {'off':>8s} {'on':>8s} {'eager':>8s}")
    for name, *t in rows:
        print(f"{name:26s} " + " ".join(f"{x:8.4f}" for x in t))
