"""bench/sweep.py on the CPU: its cases, the compile-only report, the float64 check and the
summary (the GPU run itself is for the lead's device)."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parent.parent


def _sweep():
    spec = importlib.util.spec_from_file_location("bench_sweep", ROOT / "bench" / "sweep.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


S = _sweep()


def test_cases_are_seeded_named_by_shape_and_cover_every_class():
    cases = S.all_cases(seed=0)
    assert [c.name for c in cases] == [c.name for c in S.all_cases(seed=0)]
    assert [c.name for c in cases] != [c.name for c in S.all_cases(seed=1)]
    assert len({c.name for c in cases}) == len(cases)
    assert {c.cls for c in cases} == set(S.CLASSES)
    quick = S.all_cases(seed=0, quick=True)
    assert len(quick) == 2 * len(S.CLASSES)
    assert [c.cls for c in cases[: len(S.CLASSES)]] == list(S.CLASSES)  # round-robin
    assert any(c.io_bytes > (1 << 30) for c in cases)  # a few GB
    assert S.select(cases, "matmul_nn_1000x1000x1000")[0].tags == ("issue13",)
    for c in quick:
        m, xs = c.build("meta")
        assert tuple(tuple(x.shape) for x in xs) == c.shapes


@pytest.mark.parametrize("n", [1, 2, 31, 100, 4096, 4099])
def test_draw_stays_in_range(n):
    import random

    rng = random.Random(n)
    for _ in range(50):
        v = S.draw(rng, 16, max(16, n))
        assert 16 <= v <= max(16, n)


def test_compile_only_reports_each_kernel():
    res = S.compile_case(S.matmul_case(67, 45, 37, "nt"), nvcc=False)
    assert "error" not in res, res.get("error")
    (k,) = [k for k in res["kernels"] if k["class"] != "zero fill"]
    assert k["class"].startswith("matmul") and k["staged"] and k["cp_async"]
    assert k["block"] == [256, 1, 1] and res["flags"] == []
    res = S.compile_case(S.reduce_case((4, 3000, 70), "sum", (1,)), nvcc=False)
    (k,) = [k for k in res["kernels"] if k["class"] != "zero fill"]
    assert k["class"] == "row reduction" and k["block"] == [256, 1, 1] and k["atomic"]


class _QKVAttention(torch.nn.Module):
    """Three 1x1 projections of one input (one fused launch of three matmuls), then SDPA over 8
    heads (one flash-attention kernel)."""

    def __init__(self, c=512):
        super().__init__()
        self.q, self.k, self.v = (torch.nn.Conv2d(c, c, 1) for _ in range(3))

    def forward(self, x):
        b, c, h, w = x.shape
        q, k, v = (m(x).view(b, 8, c // 8, h * w).transpose(2, 3) for m in (self.q, self.k, self.v))
        return torch.nn.functional.scaled_dot_product_attention(q, k, v)


def test_compile_only_counts_a_fused_launch_smem_once_and_names_attention():
    """A fused launch's parts reuse the same dynamic shared bytes (their sizes do not add), and
    schedule's 'flash attention' is the attention class."""
    case = S.SweepCase("qkv_attention", "attention", _QKVAttention, ((1, 512, 64, 64),))
    res = S.compile_case(case, nvcc=False)
    assert "error" not in res, res.get("error")
    fused = [k for k in res["kernels"] if k["name"].count("__") >= 2 and k["class"].startswith("matmul")]
    assert fused and all(k["smem"] <= 232448 for k in res["kernels"])
    assert any(k["class"] == "flash attention" for k in res["kernels"])


def test_errors_and_check64_against_float64():
    ref = torch.tensor([1.0, -2.0, 4.0], dtype=torch.float64)
    assert S._errors(ref.float(), ref) == (0.0, 0.0)
    norm, elem = S._errors(torch.tensor([1.0, -2.0, 5.0]), ref)
    assert norm == pytest.approx(1 / math.sqrt(21)) and elem == pytest.approx(0.25)
    assert S._errors(torch.tensor([1.0, float("nan"), 4.0]), ref) == (math.inf, math.inf)

    case = S.linear_reduce_case(5, 7, 3, "sum")
    fn, xs = case.build("cpu")
    right = S.check64(case, fn, xs, lambda *a, poison: fn(*a))
    assert right["ok"] and right["dpl_err"] == right["eager_err"]
    wrong = S.check64(case, fn, xs, lambda *a, poison: fn(*a) + 1.0)
    assert not wrong["ok"]


def test_summary_names_the_targets():
    def case(name, cls, dpl, eager, comp, ok=True):
        v = {"dpl": {"median_ms": dpl}, "eager": {"median_ms": eager}, "compile": {"median_ms": comp}}
        return {"name": name, "class": cls, "variants": v, "check": {"ok": ok, "dpl_err": 1e-7},
                "speedup": {"eager": eager / dpl, "compile": comp / dpl}}

    doc = {"cases": [case("a", "matmul", 1.0, 2.0, 1.0), case("b", "norm", 2.0, 1.0, 1.0, ok=False),
                     {"name": "c", "error": "boom", "variants": {}, "speedup": {}}]}
    s = S.summarize(doc["cases"])
    assert s["worst_vs_eager"] == 0.5 and s["worst_case"] == "b"
    assert s["below_0.8x_eager"] == ["b"] and s["wrong"] == ["b"] and s["errors"] == ["c"]
    text = S.format_summary(doc)
    assert "worst vs eager: 0.50x (b)" in text and "NO" in text and "error" in text


class _Stub:
    """What `compile_program` returns, for the CPU: runs the captured module."""

    def __init__(self, prog, wrong=False):
        self.fn, self.wrong = prog.fn, wrong

    def __call__(self, *inputs, poison=False):
        out = self.fn(*inputs)
        return out + 1.0 if self.wrong else out

    def kernels(self):
        return []

    num_kernels = 1


def test_run_on_cpu_writes_results_and_resumes(tmp_path):
    import argparse
    import json

    cases = S.select(S.all_cases(seed=0), "linear_amax_67x115to192,amax_d1_256x3x2048")
    assert len(cases) == 2
    args = argparse.Namespace(modes="eager", budget_s=600.0, target_ms=1.0, out=str(tmp_path),
                              json=str(tmp_path / "r.json"), resume=False, merge=False, seed=0,
                              verbose=False)
    calls = []

    def compiler(prog):
        calls.append(prog)
        if len(calls) == 2:
            raise RuntimeError("no kernel for you")
        return _Stub(prog)

    doc = S.run_gpu(args, cases, device="cpu", compiler=compiler)
    saved = json.loads((tmp_path / "r.json").read_text())
    assert [c["name"] for c in saved["cases"]] == [c.name for c in cases]
    first, second = saved["cases"]
    assert first["check"]["ok"] and first["speedup"]["eager"] > 0 and first["class"] == "linear_reduce"
    assert second["variants"]["dpl"]["error"] == "RuntimeError: no kernel for you"
    assert second["variants"]["eager"]["median_ms"] > 0  # eager still timed
    assert doc["summary"]["errors"] == [second["name"]]
    # --resume redoes only the case that failed
    args.resume = True
    calls.clear()
    S.run_gpu(args, cases, device="cpu", compiler=lambda p: calls.append(p) or _Stub(p, wrong=True))
    assert len(calls) == 1
    saved = json.loads((tmp_path / "r.json").read_text())
    assert saved["summary"]["wrong"] == [cases[1].name] and saved["summary"]["errors"] == []
    # another seed's file is not resumed (the fixed cases have the same names in every seed)
    args.seed = 1
    with pytest.raises(SystemExit, match="holds seed 0, not 1"):
        S.run_gpu(args, cases, device="cpu", compiler=_Stub)
    # by default the file is named for its seed
    args.json, args.resume = None, False
    S.run_gpu(args, cases[:1], device="cpu", compiler=_Stub)
    assert [p.name for p in tmp_path.glob("*-seed1.json")]
