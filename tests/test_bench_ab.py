"""bench/ab.py's variants: a pipeline string, None, or a callable whose context holds while the
variant compiles (`patched`), with no GPU: the harness is replaced by one that records what
it was asked to compile and under which constant."""

from __future__ import annotations

import types

import pytest

from dpl.bench import ab

KNOB = types.SimpleNamespace(value=8)


def test_patched_restores_the_value_even_on_error():
    with pytest.raises(RuntimeError):
        with ab.patched(KNOB, "value", 16):
            assert KNOB.value == 16
            raise RuntimeError("boom")
    assert KNOB.value == 8


def test_each_variant_compiles_under_its_own_context(monkeypatch):
    seen = []

    def fake_compile(fn, *xs, pipeline=None, tune_cache=True):
        seen.append((pipeline, KNOB.value, tune_cache))

    def fake_benchmark(name, fn, inputs, modes=(), dpl=None, **kw):
        dpl(fn, *inputs)
        out = {"dpl": {"median_ms": 1.0, "rel_err": 0.0}} | {m: {"median_ms": 2.0} for m in modes}
        return {"variants": out, "num_kernels": 1, "kernels": []}

    monkeypatch.setattr(ab, "dpl_compile", fake_compile)
    monkeypatch.setattr(ab.B, "benchmark", fake_benchmark)
    case = types.SimpleNamespace(name="c", build=lambda dev: (None, ()))
    variants = {"own": None, "pipe": "tileify", "u16": lambda: ab.patched(KNOB, "value", 16)}
    rows = ab.time_variants([case], variants, "eager", 1.0, 8, modes=("eager",))
    assert seen == [(None, 8, False), ("tileify", 8, False), (None, 16, False)]
    assert KNOB.value == 8
    assert rows[0]["eager"] == 2.0 and "compile" not in rows[0] and rows[0]["u16"]["median_ms"] == 1.0


def test_changed_lists_the_cases_whose_ir_a_variant_changes():
    """A bmm with a ragged whole K (SIMT, rows of 68: fewer K steps than the wave models race,
    schedule.RACE_MIN_STEPS) fills its stages by rows, not per copy:
    `changed` lists it at the kernel level under "per copy", not at the tile level, and never a
    pointwise case."""
    import torch

    from dpl.transforms.kernel import stage_fills

    class XWt(torch.nn.Module):
        def forward(self, x, w):
            return x @ w.transpose(-1, -2)

    def case(name, module, *shapes):
        inputs = tuple(torch.randn(*s) for s in shapes)
        return types.SimpleNamespace(name=name, build=lambda dev: (module, inputs))

    cases = [case("matmul", XWt(), (16, 128, 67), (16, 1491, 67)), case("relu", torch.nn.ReLU(), (64, 64))]
    per_copy = lambda: ab.patched(stage_fills, "fill_plan", lambda *a: "flat")  # noqa: E731
    assert [c.name for c in ab.changed(cases, per_copy, "kernel")] == ["matmul"]
    assert list(ab.changed(cases, per_copy, "tile")) == []
