"""The tuner and its cache without a GPU: a synthetic measurer stands in for the GPU (a cost from
the point), everything else is real: the program's kernels, candidates scheduled, lowered and
printed as CUDA, the SQLite cache, and the compile path that reads it (dpl compile --ir tile).

A second run measures nothing; a killed run keeps what it measured and the next goes on from it;
two processes writing the cache at once lose nothing; a corrupt cache, one of another schema or
of another dpl version, is ignored with a warning, never a crash."""

from __future__ import annotations

import hashlib
import os
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
import warnings
from pathlib import Path

import pytest

from dpl.dialects import loop, make_context, tile
from dpl.dialects.parsing import parse_module
from dpl.driver.tune import Kernel, format_picks, program_kernels, tune
from dpl.driver.tune_cache import TuneCache, TuneCacheWarning, canonical
from dpl.driver.tuned import Tuning, kernel_key, run_tuned
from dpl.frontend import capture_expression
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline
from dpl.transforms.tile.schedule import POINT, REPACK_OPERANDS, SPLIT_EPILOGUE, TUNED, read_point

EXPR = "torch.relu(torch.nn.functional.linear(torch.randn(8,64), torch.randn(32,64), torch.randn(32))) * torch.randn(8,32)"
DEVICE = "synthetic-gpu"


class Synthetic:
    """A measurer whose time of a point is a fixed pseudo-random number (no GPU)."""

    device, arch = DEVICE, None

    def __init__(self, delay: float = 0.0):
        self.delay = delay
        self.measured: list[tuple[str, str]] = []

    @staticmethod
    def cost(kernel: Kernel, point: dict) -> float:
        h = int(hashlib.sha256((kernel.key + canonical(point)).encode()).hexdigest()[:8], 16)
        return 10.0 + (h % 1000) / 100.0

    def measure(self, kernel, point, reference_ir, ir):
        assert "kernel.func" in reference_ir and "kernel.launch" in ir  # what the GPU would run
        time.sleep(self.delay)
        self.measured.append((kernel.key, canonical(point)))
        print(f"measured {kernel.key} {canonical(point)}", flush=True)
        return self.cost(kernel, point), None

    def confirm(self, kernel, points, reference_ir, irs):
        return [self.cost(kernel, p) for p in points]

    def close(self):
        pass


@pytest.fixture(scope="module")
def kernels() -> list[Kernel]:
    return program_kernels(capture_expression(EXPR).module)


def test_kernels_are_keyed_without_names():
    a = capture_expression("torch.relu(torch.randn(8,64))").module
    c = capture_expression("torch.relu(torch.randn(8,65))").module
    for m in (a, c):
        run_pipeline(m, IR_PIPELINES["loop"] + ",split-nests")
    text = str(a)
    assert "@k_relu" in text and "%relu" in text
    b = parse_module(make_context(), text.replace("@k_relu", "@k_other").replace("%relu", "%y").replace("%a0", "%i"), "b")
    (ka,), (kb,), (kc,) = ([k for k in m.walk() if isinstance(k, loop.KernelOp)] for m in (a, b, c))
    assert kernel_key(ka) == kernel_key(kb) != kernel_key(kc)


def test_tune_then_compile_uses_the_picks(kernels, tmp_path: Path):
    assert [k.cls for k in kernels] == ["matmul"]  # relu(x @ w.T + b) * y: one kernel
    db = tmp_path / "tune.sqlite"
    first = Synthetic()
    results = tune(kernels, TuneCache(db), first, trials=12, budget_s=300, workers=1)
    (r,) = results
    assert r.confirmed and r.default_us == Synthetic.cost(r.kernel, r.kernel.default)
    assert r.best_us <= r.default_us and r.trials >= 4 and len(first.measured) == r.measured
    pick = TuneCache(db).pick(r.kernel.key, DEVICE)
    assert pick is not None and pick.confirmed and pick.point == r.point
    # the report names each option the pick moves away from the default, and only those
    moved = {k for k, v in r.point.items() if r.kernel.default.get(k) != v}
    line = format_picks(results)
    assert all(f"{k} " in line for k in moved) and (line.startswith(r.kernel.name + ":") if moved else line == "")

    # the compile path attaches the pick before schedule; tile IR shows it
    module = capture_expression(EXPR).module
    tuning = Tuning(TuneCache(db), DEVICE)
    assert run_tuned(module, IR_PIPELINES["tile"], tuning) == 1
    # (a pick that splits the epilogue off or repacks operands adds kernels, and its matmul's
    # tile.point keeps the rest of the point: schedule_point)
    (tk,) = [k for k in module.walk() if isinstance(k, tile.KernelOp) and POINT in k.attributes]
    rest = {k: v for k, v in pick.point.items() if not (k in (SPLIT_EPILOGUE, REPACK_OPERANDS) and v)}
    assert read_point(tk, tk.attributes[POINT]) == rest and TUNED in tk.attributes

    # a second run is served from the cache: nothing measured
    second = Synthetic()
    (again,) = tune(kernels, TuneCache(db), second, trials=12, budget_s=300, workers=1)
    assert again.cached and second.measured == [] and again.point == pick.point


def _dpl(*args: str, cache: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "DPL_CACHE_DIR": str(cache)}
    return subprocess.run([sys.executable, "-m", "dpl.tools.dpl", *args], capture_output=True, text=True, env=env, timeout=600)


def test_dpl_compile_shows_tuned_kernels(kernels, tmp_path: Path):
    tune(kernels, TuneCache(tmp_path / "tune.sqlite"), Synthetic(), trials=6, budget_s=300, workers=1)
    tuned = _dpl("compile", "-c", EXPR, "--ir", "tile", "--tune-device", DEVICE, cache=tmp_path)
    assert tuned.returncode == 0, tuned.stderr
    assert f'tile.tuned = {{device = "{DEVICE}"' in tuned.stdout and "tile.point = {" in tuned.stdout
    plain = _dpl("compile", "-c", EXPR, "--ir", "tile", "--tune-device", DEVICE, "--no-tune-cache", cache=tmp_path)
    assert plain.returncode == 0 and "tile.tuned" not in plain.stdout and "tile.schedule" in plain.stdout
    other = _dpl("compile", "-c", EXPR, "--ir", "tile", "--tune-device", "another-gpu", cache=tmp_path)
    assert other.returncode == 0 and "tile.tuned" not in other.stdout
    assert stat.S_IMODE(os.stat(tmp_path).st_mode) == 0o700


def test_compile_survives_a_corrupt_cache(tmp_path: Path):
    (tmp_path / "tune.sqlite").write_bytes(b"not a database " * 100)
    r = _dpl("compile", "-c", "torch.relu(torch.randn(4, 8))", "--ir", "tile", "--tune-device", DEVICE, cache=tmp_path)
    assert r.returncode == 0, r.stderr
    assert "tile.kernel" in r.stdout and "tuning cache" in r.stderr and "Traceback" not in r.stderr


def test_dpl_tune_without_a_gpu_is_one_line(tmp_path: Path):
    r = _dpl("tune", "-c", "torch.relu(torch.randn(4))", cache=tmp_path)
    if r.returncode == 0:
        pytest.skip("a GPU is present")
    assert r.stderr.strip() == "dpl: error: dpl tune needs a CUDA GPU to measure on"


KILLED = """
import sys
from dpl.frontend import capture_expression
from dpl.driver.tune import program_kernels, tune
from dpl.driver.tune_cache import TuneCache
sys.path.insert(0, {tests!r})
from test_tune import EXPR, Synthetic
kernels = program_kernels(capture_expression(EXPR).module)
print("start", flush=True)
tune(kernels, TuneCache({db!r}), Synthetic(delay=0.3), trials=40, budget_s=600, workers=1)
"""


def test_a_killed_run_keeps_what_it_measured(kernels, tmp_path: Path):
    db = tmp_path / "tune.sqlite"
    script = tmp_path / "killed.py"
    script.write_text(textwrap.dedent(KILLED.format(tests=str(Path(__file__).parent), db=str(db))))
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, text=True, start_new_session=True)
    seen = []
    assert proc.stdout is not None
    for line in proc.stdout:
        if line.startswith("measured"):
            seen.append(line.split(" ", 2)[2].strip())
            if len(seen) == 5:
                os.killpg(proc.pid, signal.SIGKILL)
                break
    proc.wait(60)
    (k,) = kernels
    kept = {canonical(t.point) for t in TuneCache(db).trials(k.key, DEVICE) if t.us is not None}
    assert set(seen[:-1]) <= kept  # committed as they came (the last may be in flight at the kill)
    assert TuneCache(db).pick(k.key, DEVICE) is None or not TuneCache(db).pick(k.key, DEVICE).confirmed

    resumed = Synthetic()
    (r,) = tune(kernels, TuneCache(db), resumed, trials=12, budget_s=300, workers=1)
    again = {p for _, p in resumed.measured} & kept
    assert again <= {canonical(k.default)}  # only the reference is measured again
    assert r.confirmed and r.trials >= len(kept)


WRITER = """
import sys
from dpl.driver.tune_cache import TuneCache
cache = TuneCache(sys.argv[1])
for i in range(150):
    cache.record("k" + sys.argv[2] if i % 2 else "shared", "gpu", {{"i": i, "w": sys.argv[2]}}, us=float(i))
    cache.set_pick("shared", "gpu", {{"w": sys.argv[2]}}, 1.0, 2.0, i, False)
"""


def test_concurrent_tuners_do_not_corrupt_the_cache(tmp_path: Path):
    db = tmp_path / "tune.sqlite"
    script = tmp_path / "writer.py"
    script.write_text(WRITER.format())
    procs = [subprocess.Popen([sys.executable, str(script), str(db), w]) for w in ("a", "b")]
    assert [p.wait(300) for p in procs] == [0, 0]
    con = sqlite3.connect(db)
    assert con.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    assert con.execute("SELECT count(*) FROM trials").fetchone() == (300,)
    con.close()
    cache = TuneCache(db)
    assert len(cache.trials("shared", "gpu")) == 150
    assert cache.pick("shared", "gpu").point in ({"w": "a"}, {"w": "b"})


def test_a_cache_another_tuner_holds_is_waited_for_not_moved_aside(tmp_path: Path, monkeypatch):
    """Opening the cache while another tuner switches it to WAL can fail at once with
    SQLITE_BUSY ("database is locked", seen in test_concurrent_tuners...): the open is tried
    again, the cache is never taken for damaged and moved aside, and nothing is lost."""
    db = tmp_path / "tune.sqlite"
    TuneCache(db).record("k", "gpu", {"i": 0}, us=1.0)
    connect, fails = TuneCache._connect, [2]

    def busy_twice(self, write):
        if fails[0]:
            fails[0] -= 1
            e = sqlite3.OperationalError("database is locked")
            e.sqlite_errorcode = sqlite3.SQLITE_BUSY
            raise e
        return connect(self, write)

    monkeypatch.setattr(TuneCache, "_connect", busy_twice)
    with warnings.catch_warnings():
        warnings.simplefilter("error", TuneCacheWarning)
        cache = TuneCache(db)
        cache.record("k", "gpu", {"i": 1}, us=2.0)
    assert fails == [0] and not (tmp_path / "tune.sqlite.bad").exists()
    assert sorted(t.us for t in cache.trials("k", "gpu")) == [1.0, 2.0]


def test_corrupt_foreign_and_old_caches_are_ignored_with_a_warning(tmp_path: Path):
    db = tmp_path / "tune.sqlite"
    db.write_bytes(b"\x00garbage" * 500)
    with pytest.warns(TuneCacheWarning, match="cannot be read"):
        assert TuneCache(db).pick("k", "gpu") is None
    cache = TuneCache(db)
    with pytest.warns(TuneCacheWarning, match=r"moved to tune.sqlite.bad"):
        cache.record("k", "gpu", {"rows": 4}, us=1.0)
    assert (tmp_path / "tune.sqlite.bad").exists() and cache.trials("k", "gpu")[0].us == 1.0
    cache.set_pick("k", "gpu", {"rows": 4}, 1.0, 2.0, 3, True)
    cache.close()

    with pytest.warns(TuneCacheWarning, match=r"tuned by dpl 0.1.0, not by this dpl \(9.9\)"):
        assert TuneCache(db, version="9.9").pick("k", "gpu") is None

    con = sqlite3.connect(db)
    con.execute("UPDATE meta SET value = '99' WHERE key = 'schema'")
    con.commit()
    con.close()
    with pytest.warns(TuneCacheWarning, match="its schema is 99, this dpl reads 1"):
        assert TuneCache(db).pick("k", "gpu") is None

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert TuneCache(tmp_path / "none.sqlite").pick("k", "gpu") is None  # no file: no warning


def test_builds_run_in_parallel_processes(tmp_path: Path):
    (k,) = program_kernels(capture_expression("torch.softmax(torch.randn(4, 64), dim=-1)").module)
    m = Synthetic()
    (r,) = tune([k], TuneCache(tmp_path / "t.sqlite"), m, trials=6, budget_s=300, workers=2)
    assert r.confirmed and r.measured == len(m.measured) >= 1


def _hang(conn):  # the measuring process, replaced: it never answers
    time.sleep(60)


def test_a_hung_measurement_is_ruled_out(monkeypatch):
    from dpl.driver import tune as T

    monkeypatch.setattr(T, "_measure_loop", _hang)
    m = object.__new__(T.GpuMeasurer)
    m.timeout_s, m._proc, m._conn = 2.0, None, None
    reply = m._call({"op": "info"})
    assert reply == {"error": "timed out after 2 s", "crashed": True} and m._proc is None


def test_tune_suite_phase_tune_on_the_cpu(tmp_path: Path, monkeypatch, capsys):
    """bench/tune_suite.py's tune phase (the GPU check's first command) with the synthetic
    measurer: the operator cases' kernels first, then the layers', picks in the cache."""
    import argparse

    from dpl.bench import suite
    from dpl.bench import tune_suite as TS

    monkeypatch.setattr(suite, "DEV", "cpu")
    monkeypatch.setenv("DPL_CACHE_DIR", str(tmp_path))
    cases = suite.select("rmsnorm_1x32x2048,relu_matmul")
    args = argparse.Namespace(trials=4, method="evolve", workers=1, seed=0, verbose=False, operator_share=0.5)
    kernels, keys, progs = TS.case_kernels(cases, print)
    assert set(progs) == {c.name for c in cases}
    results = TS.phase_tune(args, kernels, keys, cases, 300.0, measurer=Synthetic())
    out = capsys.readouterr().out
    assert "tuning the 2 kernels of the operator cases" in out and "geomean" in out
    assert len(results) == 2 and all(r.confirmed for r in results)
    assert all(TuneCache(tmp_path / "tune.sqlite").pick(r.kernel.key, DEVICE) for r in results)


def test_results_are_compared_where_they_are_finite():
    """The tuner compares with frontend.check.rel_err, dpl's one relative error."""
    import torch

    from dpl.driver.tune import rel_err as _rel_err

    nan, inf = float("nan"), float("inf")
    want = torch.tensor([1.0, 2.0, nan, inf, -inf])  # NaN: an element the kernel leaves unwritten
    assert _rel_err(torch.tensor([1.0, 2.0, nan, inf, -inf]), want) == 0.0
    assert 0.04 < _rel_err(torch.tensor([1.0, 2.1, nan, inf, -inf]), want) < 0.05
    for wrong in ([1.0, 2.0, 0.0, inf, -inf], [nan, 2.0, nan, inf, -inf], [1.0, 2.0, nan, inf, inf]):
        assert _rel_err(torch.tensor(wrong), want) == inf


def test_tune_suite_on_the_cpu(tmp_path: Path, monkeypatch, capsys):
    """bench/tune_suite.py's whole command with the synthetic measurer and stand-ins for the GPU
    timing: a row per case, the summary, the JSON, and a second run that measures nothing."""
    import json
    import types

    from dpl.bench import suite
    from dpl.bench import tune_suite as TS

    monkeypatch.setattr(suite, "DEV", "cpu")
    monkeypatch.setenv("DPL_CACHE_DIR", str(tmp_path))
    monkeypatch.setattr(TS.torch.cuda, "is_available", lambda: True)
    monkeypatch.setattr(TS, "GpuMeasurer", Synthetic)
    monkeypatch.setattr(TS.B, "environment", lambda **_: {"device": DEVICE, "device_slug": "cpu", "date": "d"})
    monkeypatch.setattr(TS, "compile_program", lambda prog, tune_cache=True: types.SimpleNamespace(num_kernels=2))
    variants = {"dpl": {"median_ms": 1.0, "rel_err": 0.0}, "eager": {"median_ms": 2.0}, "compile": {"median_ms": 1.5}}
    monkeypatch.setattr(TS, "timed", lambda *a, **k: variants)
    out_json = tmp_path / "r.json"
    assert TS.main(["--cases", "rmsnorm_1x32x2048,relu_matmul", "--trials", "3", "--workers", "1",
                    "--tune-s", "60", "--json", str(out_json)]) == 0  # fmt: skip
    out = capsys.readouterr().out
    assert "relu_matmul_16x64x16" in out and "tuned vs default: geomean 1.00x" in out
    doc = json.loads(out_json.read_text())
    assert [c["name"] for c in doc["cases"]] == ["rmsnorm_1x32x2048", "relu_matmul_16x64x16"]
    assert all(c["second_run"]["measured"] == 0 and c["eager_ms"] == 2.0 for c in doc["cases"])
    assert doc["summary"]["second_run_measured"] == 0 and doc["summary"]["kernels"] == 2
