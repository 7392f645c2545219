"""The benchmark harness (bench/harness.py), suite (bench/suite.py) and chart (bench/chart.py).

CPU tests run `benchmark` on the CPU (host clock) with a stub dpl program and check the result's
schema, the tables, the JSON file and the chart; `gpu` tests time a tiny op on the GPU.
"""

from __future__ import annotations

import importlib.util
import json
import math
import sys
from pathlib import Path

import pytest
import torch

from dpl.bench import harness as B
from dpl.frontend.check import rel_err

ROOT = Path(__file__).resolve().parent.parent
gpu = pytest.mark.skipif(not torch.cuda.is_available(), reason="needs an NVIDIA GPU")


def _load(name: str):
    spec = importlib.util.spec_from_file_location(f"bench_{name}", ROOT / "bench" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


class _Kernel:
    def __init__(self, name, grid, block, nbytes, flops):
        self.name, self.grid, self.block, self.bytes, self.flops = name, grid, block, nbytes, flops


class StubProgram:
    """What dpl.driver.compile.compile returns, for tests: runs the module, two 'kernels'."""

    def __init__(self, fn, *inputs, wrong=False):
        self.fn, self.wrong = fn, wrong
        self.inputs = inputs

    def __call__(self, *inputs):
        out = self.fn(*inputs)
        return out + 1.0 if self.wrong else out

    def kernels(self):
        return [_Kernel("k_a", (32, 1, 1), (256, 1, 1), 1 << 20, 2e6),
                _Kernel("k_b", (4, 1, 1), (128, 1, 1), 4096, 0.0)]

    @property
    def num_kernels(self):
        return 2

    def kernel_launchers(self, *inputs):
        x = inputs[0]
        return [("k_a", lambda: x * 2.0), ("k_b", lambda: x + 1.0)]


def _cpu_result(**kw):
    norm = torch.nn.RMSNorm(64, eps=1e-6)
    x = torch.randn(4, 64)
    return B.benchmark("rms", norm, (x,), dpl=StubProgram, modes=("eager",), device="cpu",
                       replays=3, warmup=1, **kw)


def test_helpers():
    assert B.geomean([2.0, 8.0]) == pytest.approx(4.0)
    assert B.geomean([None, 4.0, float("nan"), 0.0]) == pytest.approx(4.0)
    assert B.geomean([]) is None
    assert B.device_slug("NVIDIA H100 80GB HBM3") == "h100-80gb-hbm3"
    a = torch.randn(10)
    assert rel_err(a, a) == 0.0
    assert rel_err((a, a), (a, a + 1)) > 0
    assert rel_err(a, torch.randn(11)) == math.inf
    # a tensor beside a list of one (the float64 reference is a list) is that list: a 0-d sum too
    assert rel_err(a, [a.double()]) == 0.0 and rel_err(a.sum(), [a.sum().double()]) == 0.0
    assert rel_err(a.reshape(2, 5), [a.reshape(2, 5), a]) == math.inf
    # one NaN rule everywhere: a NaN or inf the reference lacks is inf; equal ones count 0
    nan, inf = torch.tensor([1.0, math.nan]), torch.tensor([1.0, math.inf])
    assert rel_err(nan, torch.tensor([1.0, 2.0])) == math.inf
    assert rel_err(inf, torch.tensor([1.0, 2.0])) == math.inf
    assert rel_err(nan, nan) == 0.0 and rel_err(inf, inf) == 0.0
    assert rel_err(torch.tensor([1.0, 2.0]).numpy(), nan.numpy()) == math.inf
    from dpl.driver.compile import compare

    assert compare([nan], [torch.tensor([1.0, 2.0])], 1e-5).rel_err == math.inf
    assert compare([nan], [nan], 1e-5).rel_err == 0.0
    assert B.floor_ms(3e9, 0.0, 3e12, 5e13) == pytest.approx(1.0)
    assert B.floor_ms(0.0, 5e10, 3e12, 5e13) == pytest.approx(1.0)
    sets = B.rotating_sets((torch.zeros(256), 3), 4096)  # 1 KB a set -> 4 sets
    assert len(sets) == 4 and sets[1][1] == 3 and sets[1][0] is not sets[0][0]
    lin = torch.nn.Linear(4, 2)
    assert B.param_bytes(lin) == (8 + 2) * 4 and B.param_bytes(lambda x: x) == 0


def test_benchmark_cpu_schema_and_table():
    r = _cpu_result(profile=True)
    assert r["name"] == "rms" and r["inputs"] == [[4, 64]]
    assert r["input_bytes"] == 4 * 64 * 4 and r["param_bytes"] == 64 * 4
    assert set(r["variants"]) == {"dpl", "eager"}
    d = r["variants"]["dpl"]
    assert d["median_ms"] > 0 and d["n"] == 3 and "compile_s" in d
    # checked against the float64 reference by norm and per element (the stub runs eager fp32)
    assert r["reference"] == "float64" and r["tol"] == 1e-4
    assert d["rel_err"] < 1e-6 and d["elem_err"] <= 1 and d["elem_bad"] == 0
    assert r["variants"]["eager"]["rel_err"] == d["rel_err"]
    assert r["speedup"]["eager"] == pytest.approx(r["variants"]["eager"]["median_ms"] / d["median_ms"])
    assert r["num_kernels"] == 2 and r["flops"] == 2e6 and r["bytes"] == (1 << 20) + 4096
    assert [k["name"] for k in r["profile"]] == ["k_a", "k_b"]
    assert r["profile"][0]["grid"] == [32, 1, 1] and r["profile"][0]["gbs"] > 0
    json.dumps(r)  # JSON-able
    t = B.format_table(r)
    assert "rms" in t and "dpl" in t and "eager" in t and "k_a" in t and "GB/s" in t


def test_benchmark_records_failures():
    def broken(fn, *inputs):
        raise RuntimeError("cannot compile\nsecond line")

    x = torch.randn(8)
    r = B.benchmark("f", lambda x: x * 2, (x,), dpl=broken, modes="eager", device="cpu",
                    replays=2, warmup=0)
    assert r["variants"]["dpl"]["error"] == "RuntimeError: cannot compile"
    assert r["speedup"] == {"eager": None}
    assert "error" in B.format_table(r)
    wrong = B.benchmark("w", lambda x: x * 2, (x,), dpl=lambda f, *i: StubProgram(f, wrong=True),
                        modes=(), device="cpu", replays=2, warmup=0)
    assert wrong["variants"]["dpl"]["rel_err"] > 0.1 and wrong["variants"]["dpl"]["elem_bad"] > 0
    with pytest.raises(ValueError, match="unknown benchmark mode 'fast'"):
        B.benchmark("f", lambda x: x, (x,), modes="fast", device="cpu")


class StaleProgram(StubProgram):
    """A program that leaves its last element unwritten, in an output buffer it reuses (as
    dpl's runtime may): the answer of an earlier call is still there unless poisoned."""

    def __init__(self, fn, *inputs):
        super().__init__(fn, *inputs)
        self.buffer = fn(*inputs)  # an earlier run's answer

    def __call__(self, *inputs, poison=False):
        if poison:
            self.buffer.fill_(float("nan"))
        self.buffer[:-1] = self.fn(*inputs)[:-1]
        return self.buffer


def test_benchmark_poisons_dpl_outputs_before_its_check():
    x = torch.randn(8)
    r = B.benchmark("stale", lambda x: x * 2, (x,), dpl=StaleProgram, modes=(), device="cpu",
                    replays=2, warmup=0)
    assert r["variants"]["dpl"]["rel_err"] == math.inf


def test_dpl_backend_mode_plumbing_on_cpu():
    """The `dpl-backend` mode is torch.compile(backend="dpl") (on a CPU its parts cannot load and
    run eagerly, with a warning); its time sits beside dpl's in the summary."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = B.benchmark("relu", torch.nn.ReLU(), (torch.randn(64),), dpl=StubProgram,
                        modes=("dpl-backend",), device="cpu", replays=2, warmup=0)
    e = r["variants"]["dpl-backend"]
    assert e["torch_compile_backend"] == "dpl" and e["rel_err"] == 0.0 and e["median_ms"] > 0
    assert r["speedup"]["dpl-backend"] == pytest.approx(e["median_ms"] / r["variants"]["dpl"]["median_ms"])
    s = B.format_summary({"cases": [r]})
    assert "backend ms" in s and "backend/dpl" in s


def _fake_doc():
    cases = []
    for i, (dpl, eager, comp) in enumerate([(1.0, 2.0, 1.5), (2.0, 2.0, 1.0), (1.0, None, 4.0)]):
        v = {"dpl": {"median_ms": dpl, "rel_err": 1e-7}, "compile": {"median_ms": comp}}
        v["eager"] = {"median_ms": eager} if eager else {"error": "RuntimeError: x"}
        cases.append({"name": f"case{i}", "variants": v, "num_kernels": i + 1})
        B._ratios(cases[-1])
    cases.append({"name": "late", "skipped": "time budget", "variants": {}, "speedup": {}})
    doc = {"schema": B.SCHEMA, "device": "Fake GPU", "device_slug": "fake-gpu", "date": "2026-01-01",
           "torch": "2.11", "copy_gbs": 2900.0, "cublas_fp32_gflops": 51000.0,
           "modes": ["eager", "compile"], "cases": cases}
    doc["geomean"] = B.geomeans(cases)
    return doc


def test_summary_geomean_and_json(tmp_path):
    doc = _fake_doc()
    assert doc["geomean"]["eager"] == pytest.approx(math.sqrt(2.0 * 1.0))
    assert doc["geomean"]["compile"] == pytest.approx((1.5 * 0.5 * 4.0) ** (1 / 3))
    assert doc["geomean"]["max-autotune"] is None
    s = B.format_summary(doc)
    assert "case0" in s and "2.00x" in s and "err" in s and "late (skipped)" in s
    assert "vs eager 1.41x" in s
    p = tmp_path / "r.json"
    doc["cases"][0]["variants"]["dpl"]["p90_ms"] = float("nan")
    B.write_json(str(p), doc)
    back = json.loads(p.read_text())
    assert back["cases"][0]["variants"]["dpl"]["p90_ms"] is None
    assert {"schema", "device", "date", "torch", "copy_gbs", "cublas_fp32_gflops", "cases"} <= set(back)


def test_chart_markdown_and_png(tmp_path):
    chart = _load("chart")
    p = tmp_path / "fake-gpu-2026-01-01.json"
    B.write_json(str(p), _fake_doc())
    doc = chart.load(str(p))
    md = chart.markdown(doc)
    assert md.splitlines()[0].startswith("| case | dpl ms | eager ms | compile ms")
    assert "| case0 | 1.0000 | 2.0000 | 1.5000 | 2.00x | 1.50x |" in md
    assert "Geometric mean speedup of dpl: eager 1.41x" in md
    pytest.importorskip("matplotlib")
    out = chart.chart(doc, str(tmp_path / "c.png"))
    assert Path(out).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert chart.main([str(p)]) == 0 and (tmp_path / "fake-gpu-2026-01-01.png").exists()


def test_suite_cases():
    suite = _load("suite")
    names = [c.name for c in suite.CASES]
    assert len(names) == len(set(names)) == 21
    for want in ("rmsnorm_1x32x2048", "rmsnorm_1x2048x4096", "softmax_1x28x2048x2048",
                 "relu_matmul_16x64x16", "silu_mul_128x18944", "linear_3584x3584_s2048",
                 "linear_3584x512_bias_s128", "sdpa_causal_h28_d128_s512", "sdpa_causal_h28_d128_s2048",
                 "sdpa_h28_d128_s1024", "sdpa_gqa_causal_h32kv4_d128_s2048",
                 "tinyllama_layer_s128", "qwen2.5-7b_layer_s512"):
        assert want in names
    assert [c.name for c in suite.select("rmsnorm,sdpa.*s128")] == [
        "rmsnorm_1x32x2048", "rmsnorm_1x2048x4096", "sdpa_causal_h28_d128_s128"]
    assert suite.main(["--list", "--cases", "silu"]) == 0
    order = {c.name: i for i, c in enumerate(suite.CASES)}
    old = [{"name": "silu_mul_128x18944", "v": 1}, {"name": "rmsnorm_1x32x2048", "v": 1}]
    new = {"cases": [{"name": "rmsnorm_1x32x2048", "v": 2},
                     {"name": "silu_mul_128x18944", "skipped": "time budget"},
                     {"name": "tinyllama_layer_s128", "v": 2}]}
    merged = suite._merged(new, old, order)["cases"]
    assert [(c["name"], c.get("v")) for c in merged] == [
        ("rmsnorm_1x32x2048", 2), ("silu_mul_128x18944", 1), ("tinyllama_layer_s128", 2)]


# ----------------------------------------------------------------------------- GPU


@pytest.mark.gpu
@gpu
def test_gpu_time_graph_and_fallback():
    x = torch.randn(1 << 16, device="cuda")
    sets = B.rotating_sets((x,), 2 * B.l2_bytes())
    t = B.gpu_time(lambda a: a * 2.0, sets, replays=20)
    assert t["graph"] and t["n"] == 20 and t["calls_per_replay"] == len(sets) > 1
    assert 0 < t["p10_ms"] <= t["median_ms"] <= t["p90_ms"] < 1.0

    def syncs(a):  # synchronizing inside capture is illegal: eager launches are timed instead
        torch.cuda.synchronize()
        return a + 1.0

    t = B.gpu_time(syncs, [(x,)], replays=5, flush=True)
    assert not t["graph"] and "graph capture failed" in t["note"] and t["median_ms"] > 0


@pytest.mark.gpu
@gpu
def test_gpu_benchmark_stub_and_ceilings():
    assert B.measure_copy_bandwidth(1 << 28) > 1e11
    norm = torch.nn.RMSNorm(2048, eps=1e-6)
    r = B.benchmark("rms", norm, (torch.randn(1, 32, 2048),), dpl=StubProgram, modes=("eager",),
                    profile=True, replays=20)
    assert r["l2"]["policy"] == "rotate" and r["l2"]["sets"] > 1
    assert r["variants"]["dpl"]["graph"] and r["variants"]["dpl"]["rel_err"] < 1e-6  # eager fp32 vs float64
    assert r["cublas_fp32_gflops"] > 1000 and r["profile"][0]["median_ms"] > 0
    print(B.format_table(r))


@pytest.mark.gpu
@gpu
def test_gpu_benchmark_real_dpl():
    r = B.benchmark("rms", torch.nn.RMSNorm(2048, eps=1e-6), (torch.randn(1, 32, 2048),),
                    modes=("eager",), profile=True, replays=20)
    d = r["variants"]["dpl"]
    assert "error" not in d, d.get("error")
    assert d["rel_err"] < 1e-5 and d["median_ms"] > 0 and r["num_kernels"] >= 1
    assert r["profile"][0]["gbs"] > 0 and r["floor_ms"] > 0
    print(B.format_table(r))
