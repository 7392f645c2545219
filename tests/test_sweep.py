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
