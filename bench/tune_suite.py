"""Tune the suite (issue 19's check): tuned against default schedules, on the GPU.

    python3 bench/tune_suite.py --phase tune --budget-s 480     # search; picks go to the cache
    python3 bench/tune_suite.py --phase compare                 # tuned vs default, cache re-run

Cases: bench/suite.py's 13 operator cases and its 4 decoder layers (`--cases` selects by regular
expression, as in suite.py). Both phases capture every case and list its distinct loop kernels
(`driver.tune.program_kernels`; a kernel shared by cases is tuned once).

`tune`: `driver.tune.tune` over the operator cases' kernels (`--operator-share` of the time),
then the decoder layers' (the rest), within `--budget-s` seconds of wall time for the whole phase
(capture included); every result is in the tuning cache as it
comes (`$DPL_CACHE_DIR`, see driver/tune_cache.py), so a phase cut short keeps what it measured,
and running it again goes on from there.

`compare`, in one process: each case compiled twice from one capture, with the tuned schedules
(the cache) and without (`tune_cache=False`), each checked against eager and timed like the
suite (CUDA graph, L2 rotated or flushed, median; in the order default, tuned, tuned, default,
the two medians of each averaged). Printed per case: both times and the speedup, and how many of
its kernels got a tuned point; then the geomean over the operator cases and over the layers and
the slowest case. Per kernel, from the cache: the default schedule's time against the best
measured (both confirmed, each kernel alone), the median of those ratios, and the pick. Last,
the second run: `tune` again over the same kernels, which must be served from the cache with no
measurement. Results: `bench/results/<device>-<date>-tune.json` (rewritten after every case).
"""

from __future__ import annotations

import argparse
import gc
import math
import os
import statistics
import sys
import time
from typing import Any

import torch

from dpl.bench import harness as B
from dpl.bench.suite import CASES, Case, select
from dpl.driver.compile import compile_program
from dpl.driver.tune import GpuMeasurer, Kernel, format_results, program_kernels, summary, tune
from dpl.driver.tune_cache import TuneCache
from dpl.frontend import capture

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")


def is_layer(case: Case) -> bool:
    return "decoder" in case.tags


def captured(case: Case) -> tuple[Any, tuple, Any]:
    """(fn on the CPU, CUDA inputs, the dpl program captured from CPU copies)."""
    torch.manual_seed(0)
    fn, inputs = case.make()
    if not isinstance(fn, torch.nn.Module):
        raise ValueError(f"{case.name}: not an nn.Module")
    prog = capture(fn.cpu(), *[x.detach().cpu() for x in inputs], dtype=torch.float32)
    return fn, inputs, prog


def case_kernels(cases: list[Case], log) -> tuple[list[Kernel], dict[str, list[str]], dict[str, tuple]]:
    """Every distinct kernel of `cases` (operator cases' first), each case's kernel keys, and
    each case's (fn, inputs, program)."""
    known: dict[str, Kernel] = {}
    keys: dict[str, list[str]] = {}
    progs: dict[str, tuple] = {}
    for case in sorted(cases, key=is_layer):
        t0 = time.perf_counter()
        progs[case.name] = fn, inputs, prog = captured(case)
        keys[case.name] = [k.key for k in program_kernels(prog.module, known)]
        log(f"{case.name}: {len(keys[case.name])} kernels ({time.perf_counter() - t0:.1f} s)")
    return list(known.values()), keys, progs


def phase_tune(args, cases: list[Case], start: float, measurer: Any = None) -> list:
    kernels, keys, progs = case_kernels(cases, print)
    del progs
    gc.collect()
    layer_keys = {k for c in cases if is_layer(c) for k in keys[c.name]}
    op_keys = {k for c in cases if not is_layer(c) for k in keys[c.name]}
    groups = [("operator cases", [k for k in kernels if k.key in op_keys]),
              ("decoder layers", [k for k in kernels if k.key in layer_keys and k.key not in op_keys])]  # fmt: skip
    cache = TuneCache()
    measurer = measurer or GpuMeasurer()
    results = []
    try:
        for i, (what, group) in enumerate(groups):
            left = args.budget_s - (time.perf_counter() - start) - 15.0
            share = left * args.operator_share if i == 0 and groups[1][1] else left
            if not group or share < 10:
                continue
            print(f"{measurer.device}: tuning the {len(group)} kernels of the {what} for {share:.0f} s "
                  f"(method {args.method}, at most {args.trials} points each)", flush=True)  # fmt: skip
            results += tune(group, cache, measurer, method=args.method, trials=args.trials, budget_s=share,
                            workers=args.workers, seed=args.seed,
                            log=(lambda m: print(m, flush=True)) if args.verbose else None)  # fmt: skip
    finally:
        measurer.close()
    print(format_results(results))
    print(summary(results))
    print(f"tune phase: {time.perf_counter() - start:.0f} s")
    return results


def timed(name: str, fn, inputs, compiled) -> dict[str, Any]:
    r = B.benchmark(name, fn, inputs, dpl=compiled, modes=(), ceilings=False, target_ms=100.0)
    return r["variants"]["dpl"]


def phase_compare(args, cases: list[Case], start: float) -> dict[str, Any]:
    doc = B.environment(ceilings=False)
    device = doc["device"]
    path = args.json or os.path.join(args.out, f"{doc['device_slug']}-{doc['date']}-tune.json")
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    doc.update(command=" ".join(sys.argv), cases=[], kernels=[])
    cache = TuneCache()
    kernels, keys, progs = case_kernels(cases, print)
    by_key = {k.key: k for k in kernels}
    for case in cases:
        fn, inputs, prog = progs[case.name]
        fn = fn.to("cuda")
        row: dict[str, Any] = {"name": case.name, "layer": is_layer(case)}
        try:
            default = compile_program(prog, tune_cache=False)
            tuned = compile_program(prog)
            ms = {"default": [], "tuned": []}
            for which in ("default", "tuned", "tuned", "default"):
                entry = timed(case.name, fn, inputs, default if which == "default" else tuned)
                if "error" in entry:
                    raise RuntimeError(f"{which}: {entry['error']}")
                ms[which].append(entry["median_ms"])
                row[f"{which}_rel_err"] = entry.get("rel_err")
            row["default_ms"] = statistics.mean(ms["default"])
            row["tuned_ms"] = statistics.mean(ms["tuned"])
            row["speedup"] = row["default_ms"] / row["tuned_ms"]
            picks = [cache.pick(k, device) for k in keys[case.name]]
            row["kernels"] = len(picks)
            row["kernels_tuned"] = sum(p is not None and p.point != by_key[k].default
                                       for k, p in zip(keys[case.name], picks))  # fmt: skip
            row["launches"] = {"default": default.num_kernels, "tuned": tuned.num_kernels}
        except Exception as e:  # noqa: BLE001 - a broken case must not end the run
            row["error"] = B._one_line(e)
        doc["cases"].append(row)
        print(_case_line(row), flush=True)
        fn = inputs = None
        del progs[case.name], prog
        gc.collect()
        torch.cuda.empty_cache()
        B.write_json(path, doc)

    ratios = []
    for k in kernels:
        pick = cache.pick(k.key, device)
        entry: dict[str, Any] = {"name": k.name, "class": k.cls, "uses": k.uses, "key": k.key[:16]}
        if pick is not None:
            ratio = pick.default_us / pick.us if pick.us > 0 else None
            entry.update(default_us=pick.default_us, best_us=pick.us, default_over_best=ratio,
                         trials=pick.trials, confirmed=pick.confirmed, point=pick.point,
                         default_point=k.default)  # fmt: skip
            if ratio:
                ratios.append(ratio)
        doc["kernels"].append(entry)

    measurer = GpuMeasurer()
    try:
        again = tune(kernels, cache, measurer, method=args.method, trials=args.trials, budget_s=60.0, workers=1)
    finally:
        measurer.close()
    doc["second_run"] = {"kernels": len(again), "from_cache": sum(r.cached for r in again),
                         "measured": sum(r.measured for r in again)}  # fmt: skip

    ops = [c["speedup"] for c in doc["cases"] if "speedup" in c and not c["layer"]]
    layers = [c["speedup"] for c in doc["cases"] if "speedup" in c and c["layer"]]
    doc["summary"] = {
        "geomean_operator_cases": _geo(ops),
        "geomean_layers": _geo(layers),
        "slowest_case": min((c for c in doc["cases"] if "speedup" in c), key=lambda c: c["speedup"], default={}).get("name"),
        "min_speedup": min(ops + layers) if ops + layers else None,
        "median_default_over_best": statistics.median(ratios) if ratios else None,
        "kernels_within_1_2x": sum(r <= 1.2 for r in ratios),
        "kernels": len(ratios),
    }
    doc["wall_s"] = time.perf_counter() - start
    B.write_json(path, doc)
    print()
    print(format_kernels(doc["kernels"]))
    s = doc["summary"]
    print(f"\nper kernel (each alone, confirmed): default / best measured, median "
          f"{_f(s['median_default_over_best'])}x; {s['kernels_within_1_2x']}/{s['kernels']} within 1.2x")  # fmt: skip
    print(f"tuned vs default: geomean {_f(s['geomean_operator_cases'])}x over the operator cases, "
          f"{_f(s['geomean_layers'])}x over the decoder layers; slowest case {s['slowest_case']} "
          f"{_f(s['min_speedup'])}x")  # fmt: skip
    sr = doc["second_run"]
    print(f"second run: {sr['from_cache']}/{sr['kernels']} kernels from the cache, {sr['measured']} measured")
    print(f"wrote {path} ({doc['wall_s']:.0f} s)")
    return doc


def _geo(values: list[float]) -> float | None:
    return math.exp(statistics.mean(math.log(v) for v in values)) if values else None


def _f(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def _case_line(row: dict[str, Any]) -> str:
    if "error" in row:
        return f"{row['name']}: error: {row['error']}"
    return (f"{row['name']:32s} default {row['default_ms']:.4f} ms  tuned {row['tuned_ms']:.4f} ms  "
            f"{row['speedup']:.2f}x  ({row['kernels_tuned']}/{row['kernels']} kernels tuned, launches "
            f"{row['launches']['default']} -> {row['launches']['tuned']}, rel err {row.get('tuned_rel_err') or 0:.1e})")  # fmt: skip


def format_kernels(kernels: list[dict[str, Any]]) -> str:
    lines = [f"{'kernel':24s} {'class':14s} {'uses':>4s} {'default us':>10s} {'best us':>9s} {'default/best':>12s} {'trials':>6s}  pick"]
    for k in kernels:
        if "best_us" not in k:
            lines.append(f"{k['name']:24s} {k['class']:14s} {k['uses']:4d} (not tuned)")
            continue
        changed = {n: v for n, v in k["point"].items() if k["default_point"].get(n) != v}
        lines.append(f"{k['name']:24s} {k['class']:14s} {k['uses']:4d} {k['default_us']:10.2f} {k['best_us']:9.2f} "
                     f"{_f(k['default_over_best']):>12s} {k['trials']:6d}  {changed or 'default'}")  # fmt: skip
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--phase", choices=("tune", "compare"), required=True)
    p.add_argument("--cases", help="comma-separated regexes over case names (default: all 17)")
    p.add_argument("--budget-s", type=float, default=480.0, help="tune: wall time of the phase (default 480)")
    p.add_argument("--trials", type=int, default=64, help="tune: the most points per kernel (default 64)")
    p.add_argument("--operator-share", type=float, default=0.5,
                   help="tune: the share of the budget the operator cases' kernels get first (default 0.5)")
    p.add_argument("--method", choices=("evolve", "random"), default="evolve")
    p.add_argument("--workers", type=int, default=None, help="tune: compiling processes (default: cores - 1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=OUT)
    p.add_argument("--json", help="compare: results file (default <out>/<device>-<date>-tune.json)")
    p.add_argument("-v", "--verbose", action="store_true", help="tune: print every measured point")
    args = p.parse_args(argv)
    cases = select(args.cases, CASES)
    if not cases:
        raise SystemExit(f"tune_suite: no case matches '{args.cases}'")
    if not torch.cuda.is_available():
        raise SystemExit("tune_suite: needs a CUDA GPU")
    start = time.perf_counter()
    if args.phase == "tune":
        phase_tune(args, cases, start)
    else:
        phase_compare(args, cases, start)
    return 0


if __name__ == "__main__":
    sys.exit(main())
