"""Pipeline variants A/B over sweep cases, in one process: the shared core of
bench/pointwise_ab.py and bench/schedule_ab.py.

`time_variants` times each case under each variant with `dpl.bench.harness.benchmark` (CUDA
graph replays, median, inputs rotated past L2, output checked against PyTorch in float64), eager
and torch.compile once per case (`modes`), and prints a line per case as it goes; `report`
prints the table again and the geomean per variant of `ref`'s time (eager or torch.compile) over
the variant's (> 1: dpl faster), `!` where a variant's error is past 1e-5. A variant is a
pipeline after loop IR, None for dpl's own, or a callable returning a context manager inside
which dpl's own pipeline is compiled: a change of a constant or pipeline string tried without
editing the tree, e.g. `lambda: patched(stage_fills, "FILL_UNROLL_TRIPS", 16)`. `changed`
lists the cases whose IR such a variant changes (on the host, nothing runs).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, nullcontext
from typing import Any

import torch

from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
from dpl.frontend import capture
from dpl.transforms.pipelines import IR_PIPELINES, run_pipeline


@contextmanager
def patched(owner: Any, name: str, value: Any) -> Iterator[None]:
    """`owner.name` (a module constant, a dict entry's owner...) set to `value` for the block."""
    old = getattr(owner, name)
    setattr(owner, name, value)
    try:
        yield
    finally:
        setattr(owner, name, old)


Variant = str | None | Callable[[], Any]


def time_variants(cases: Iterable, variants: dict[str, Variant], ref: str, target_ms: float,
                  width: int, modes: tuple[str, ...] = ("eager", "compile")) -> list[dict]:  # fmt: skip
    """A row per case: its name, eager and torch.compile medians (ms, those of `modes`), and per
    variant label its median, error, launches and kernel names (or error). The compiles ignore
    the tuning cache (the schedules the variants give, not picks tuned before)."""
    rows = []
    for case in cases:
        fn, inputs = case.build("cuda")
        row: dict = {"name": case.name}
        for i, (label, spec) in enumerate(variants.items()):
            within = spec if callable(spec) else nullcontext
            pipeline = None if callable(spec) else spec
            with within():
                res = B.benchmark(case.name, fn, inputs, modes=modes if i == 0 else (), ceilings=False,
                                  target_ms=target_ms, dpl=lambda f, *xs, s=pipeline: dpl_compile(
                                      f, *xs, pipeline=s, tune_cache=False))  # fmt: skip
            for mode in ("eager", "compile"):
                if mode in res["variants"]:
                    row[mode] = res["variants"][mode].get("median_ms")
            d = res["variants"]["dpl"]
            row[label] = {"median_ms": d.get("median_ms"), "rel_err": d.get("rel_err"),
                          "launches": res.get("num_kernels"),
                          "kernels": [k["name"] for k in res.get("kernels", [])], "error": d.get("error")}  # fmt: skip
        rows.append(row)
        print(line(row, list(variants), ref, width), flush=True)
    return rows


def changed(cases: Iterable, variant: Callable[[], Any], level: str = "tile") -> Iterator:
    """The cases whose IR at `level` (an IR_PIPELINES key) differs under `variant` (a callable
    returning a context manager, as in `time_variants`) from dpl's own: the programs an A/B of a
    schedule change needs to time. Built on the "meta" device: nothing runs."""
    for case in cases:
        fn, inputs = case.build("meta")
        irs = []
        for within in (variant, nullcontext):
            mod = capture(fn, *inputs, dtype=torch.float32).module
            with within():
                run_pipeline(mod, IR_PIPELINES[level])
            irs.append(str(mod))
        if irs[0] != irs[1]:
            yield case


def report(rows: list[dict], variants: list[str], ref: str, width: int, json_path: str | None,
           extra: dict | None = None) -> None:  # fmt: skip
    """The table of `rows`, the geomean per variant against `ref`, and the JSON (with `extra`)."""
    print()
    print(f"{'case':{width}} {'eager':>8} {'compile':>8} " + " ".join(f"{v[:16]:>16}" for v in variants))
    for row in rows:
        print(line(row, variants, ref, width))
    for v in variants:
        ratios = [row[ref] / row[v]["median_ms"] for row in rows if row.get(ref) and row[v].get("median_ms")]
        print(f"geomean x {ref}, {v}: {B.geomean(ratios) or 0:.3f}")
    if json_path:
        B.write_json(json_path, {"device": torch.cuda.get_device_name(), **(extra or {}), "cases": rows})


def line(row: dict, variants: list[str], ref: str, width: int) -> str:
    """One case: eager and torch.compile ms, then per variant its ms and ratio to `ref`."""
    cells = []
    for v in variants:
        d = row[v]
        if d.get("error") or not d.get("median_ms"):
            cells.append(f"{'error':>16}")
            continue
        x = row[ref] / d["median_ms"] if row.get(ref) else 0.0
        bad = "!" if (d.get("rel_err") or 0) > 1e-5 else " "
        cells.append(f"{d['median_ms']:8.4f} x{x:5.2f}{bad}")
    return f"{row['name']:{width}} {row.get('eager') or 0:8.4f} {row.get('compile') or 0:8.4f} " + " ".join(cells)
