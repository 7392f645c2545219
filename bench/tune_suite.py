"""Tune the suite (issue 19's check): tuned against default schedules, on the GPU, in one command.

    python3 bench/tune_suite.py                         # every suite case, about 6-8 minutes on an H100
    python3 bench/tune_suite.py --cases linear --tune-s 60

Cases: bench/suite.py's 17 operator cases and its 4 decoder layers (`--cases` selects by regular
expression, as in suite.py). Every case is captured and its distinct loop kernels listed
(`driver.tune.program_kernels`; a kernel shared by cases is tuned once). Then, within
`--total-s` seconds of wall time for the whole command (a case the time does not reach is
marked skipped):

1. tune: `driver.tune.tune` over the operator cases' kernels, then the decoder layers' (each
   group its share of `--tune-s`), at most `--trials` points a kernel; every result goes to the
   tuning cache as it comes (`$DPL_CACHE_DIR`, driver/tune_cache.py), so a run cut short keeps
   what it measured and the next run goes on from there;
2. compare, case by case in one process: compiled twice from one capture, with the tuned
   schedules (the cache) and without (`tune_cache=False`), each checked against eager and timed
   like the suite (CUDA graph, L2 rotated or flushed, median), default then tuned, with eager
   and torch.compile timed beside the default; then the second run: `tune` again over the
   case's kernels, which must be served from the cache (its time, and how many points it
   measured: 0).

Printed: a row per case (default ms, tuned ms, gain, eager ms, torch.compile ms, the second run's
seconds and measurements), the geomean gain over the operator cases and over the layers, the
slowest case, and per kernel the default schedule's distance from the best measured (each alone,
both confirmed: the median of default/best, and how many are within 1.2x; `-v` prints the
kernels). Results: `bench/results/<device>-<date>-tune.json` (rewritten after every case).
`--phase tune` or `--phase compare` runs one part alone.
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
from dpl.driver.tune import GpuMeasurer, Kernel, format_picks, format_results, program_kernels, summary, tune
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
        try:
            fn, inputs, prog = captured(case)
            keys[case.name] = [k.key for k in program_kernels(prog.module, known)]
        except Exception as e:  # noqa: BLE001 - a case that does not capture is left out, said so
            log(f"{case.name}: error: {B._one_line(e)}")
            continue
        progs[case.name] = fn, inputs, prog
        log(f"{case.name}: {len(keys[case.name])} kernels ({time.perf_counter() - t0:.1f} s)")
    return list(known.values()), keys, progs


def phase_tune(args, kernels: list[Kernel], keys: dict[str, list[str]], cases: list[Case],
               budget_s: float, measurer: Any = None) -> list:  # fmt: skip
    """Tune the operator cases' kernels, then the decoder layers', within `budget_s` seconds."""
    layer_keys = {k for c in cases if is_layer(c) for k in keys.get(c.name, [])}
    op_keys = {k for c in cases if not is_layer(c) for k in keys.get(c.name, [])}
    groups = [("operator cases", [k for k in kernels if k.key in op_keys]),
              ("decoder layers", [k for k in kernels if k.key in layer_keys and k.key not in op_keys])]  # fmt: skip
    start = time.perf_counter()
    cache = TuneCache()
    measurer = measurer or GpuMeasurer()
    results = []
    try:
        for i, (what, group) in enumerate(groups):
            left = budget_s - (time.perf_counter() - start)
            share = left * args.operator_share if i == 0 and groups[1][1] else left
            if not group or share < 5:
                continue
            print(f"{measurer.device}: tuning the {len(group)} kernels of the {what} for {share:.0f} s "
                  f"(method {args.method}, at most {args.trials} points each)", flush=True)  # fmt: skip
            results += tune(group, cache, measurer, method=args.method, trials=args.trials, budget_s=share,
                            workers=args.workers, seed=args.seed,
                            log=(lambda m: print(m, flush=True)) if args.verbose else None)  # fmt: skip
    finally:
        measurer.close()
    if args.verbose:
        print(format_results(results))
    if picks := format_picks(results):
        print(picks)
    print(summary(results))
    print(f"tune: {time.perf_counter() - start:.0f} s", flush=True)
    return results


def timed(name: str, fn, inputs, compiled, modes: tuple[str, ...] = ()) -> dict[str, Any]:
    """The suite's timing of `compiled` (and of `modes`, e.g. eager and torch.compile)."""
    r = B.benchmark(name, fn, inputs, dpl=compiled, modes=modes, ceilings=False, target_ms=50.0)
    return r["variants"]


def compare_case(case: Case, fn, inputs, prog, keys: list[str], by_key: dict[str, Kernel],
                 cache: TuneCache, device: str) -> dict[str, Any]:  # fmt: skip
    """Tuned against default schedules (and eager, torch.compile) on one case."""
    row: dict[str, Any] = {"name": case.name, "layer": is_layer(case)}
    fn = fn.to(inputs[0].device)
    default = compile_program(prog, tune_cache=False)
    tuned = compile_program(prog)
    ms: dict[str, list[float]] = {"default": [], "tuned": []}
    for i, which in enumerate(("default", "tuned")):
        variants = timed(case.name, fn, inputs, default if which == "default" else tuned,
                         ("eager", "compile") if i == 0 else ())  # fmt: skip
        entry = variants["dpl"]
        if "error" in entry:
            raise RuntimeError(f"{which}: {entry['error']}")
        ms[which].append(entry["median_ms"])
        row[f"{which}_rel_err"] = entry.get("rel_err")
        for mode in ("eager", "compile") if i == 0 else ():
            row[f"{mode}_ms"] = variants.get(mode, {}).get("median_ms")
    row["default_ms"] = statistics.mean(ms["default"])
    row["tuned_ms"] = statistics.mean(ms["tuned"])
    row["speedup"] = row["default_ms"] / row["tuned_ms"]
    picks = [cache.pick(k, device) for k in keys]
    row["kernels"] = len(picks)
    row["kernels_tuned"] = sum(p is not None and p.point != by_key[k].default for k, p in zip(keys, picks))
    row["launches"] = {"default": default.num_kernels, "tuned": tuned.num_kernels}
    return row


def second_run(args, row: dict[str, Any], kernels: list[Kernel], cache: TuneCache, measurer) -> None:
    """`tune` again over a case's kernels: served from the cache, nothing measured."""
    t0 = time.perf_counter()
    again = tune(kernels, cache, measurer, method=args.method, trials=args.trials, budget_s=5.0, workers=1)
    row["second_run"] = {"s": time.perf_counter() - t0, "kernels": len(again),
                         "from_cache": sum(r.cached for r in again),
                         "measured": sum(r.measured for r in again)}  # fmt: skip


def phase_compare(args, cases: list[Case], kernels: list[Kernel], keys: dict[str, list[str]],
                  progs: dict[str, tuple], deadline: float, start: float) -> dict[str, Any]:  # fmt: skip
    doc = B.environment(ceilings=False)
    device = doc["device"]
    path = args.json or os.path.join(args.out, f"{doc['device_slug']}-{doc['date']}-tune.json")
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    doc.update(command=" ".join(sys.argv), cases=[], kernels=[], tune_s=args.tune_s, trials=args.trials)
    cache = TuneCache()
    by_key = {k.key: k for k in kernels}
    measurer = GpuMeasurer()  # started only if the second run has something to measure
    print(f"\n{'case':30s} {'default ms':>10s} {'tuned ms':>9s} {'gain':>6s} {'eager ms':>9s} "
          f"{'compile ms':>10s} {'2nd run (cache)':>15s}", flush=True)  # fmt: skip
    try:
        for case in cases:
            row: dict[str, Any] = {"name": case.name, "layer": is_layer(case)}
            if case.name not in progs:
                row["error"] = "not captured"
            elif time.perf_counter() > deadline:
                row["skipped"] = f"time (--total-s {args.total_s:.0f})"
            else:
                fn, inputs, prog = progs.pop(case.name)
                try:
                    row = compare_case(case, fn, inputs, prog, keys[case.name], by_key, cache, device)
                    second_run(args, row, [by_key[k] for k in keys[case.name]], cache, measurer)
                except Exception as e:  # noqa: BLE001 - a broken case must not end the run
                    row["error"] = B._one_line(e)
                fn = inputs = prog = None
                gc.collect()
                torch.cuda.empty_cache()
            doc["cases"].append(row)
            print(_case_line(row), flush=True)
            B.write_json(path, doc)
    finally:
        measurer.close()

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
    done = [c for c in doc["cases"] if "speedup" in c]
    ops = [c["speedup"] for c in done if not c["layer"]]
    layers = [c["speedup"] for c in done if c["layer"]]
    seconds = [c["second_run"] for c in done if "second_run" in c]
    doc["summary"] = {
        "geomean_operator_cases": _geo(ops),
        "geomean_layers": _geo(layers),
        "slowest_case": min(done, key=lambda c: c["speedup"], default={}).get("name"),
        "min_speedup": min(ops + layers) if ops + layers else None,
        "median_default_over_best": statistics.median(ratios) if ratios else None,
        "kernels_within_1_2x": sum(r <= 1.2 for r in ratios),
        "kernels": len(ratios),
        "second_run_measured": sum(s["measured"] for s in seconds),
        "second_run_s": sum(s["s"] for s in seconds),
    }
    doc["wall_s"] = time.perf_counter() - start
    B.write_json(path, doc)
    if args.verbose:
        print()
        print(format_kernels(doc["kernels"]))
    s = doc["summary"]
    print(f"\ntuned vs default: geomean {_f(s['geomean_operator_cases'])}x over the operator cases, "
          f"{_f(s['geomean_layers'])}x over the decoder layers; slowest case {s['slowest_case']} "
          f"{_f(s['min_speedup'])}x")  # fmt: skip
    print(f"per kernel (each alone, confirmed): default / best measured, median "
          f"{_f(s['median_default_over_best'])}x; {s['kernels_within_1_2x']}/{s['kernels']} within 1.2x")  # fmt: skip
    print(f"second runs: {s['second_run_measured']} points measured, {s['second_run_s']:.1f} s in all")
    print(f"wrote {path} ({doc['wall_s']:.0f} s)")
    return doc


def _geo(values: list[float]) -> float | None:
    return math.exp(statistics.mean(math.log(v) for v in values)) if values else None


def _f(v: float | None) -> str:
    return "-" if v is None else f"{v:.2f}"


def _case_line(row: dict[str, Any]) -> str:
    if "error" in row or "skipped" in row:
        return f"{row['name']:30s} {'error: ' + row['error'] if 'error' in row else 'skipped: ' + row['skipped']}"
    sr = row.get("second_run", {})
    second = f"{sr['s']:.1f} s, {sr['measured']} pts" if sr else "-"
    return (f"{row['name']:30s} {row['default_ms']:10.4f} {row['tuned_ms']:9.4f} {row['speedup']:5.2f}x "
            f"{_ms(row.get('eager_ms')):>9s} {_ms(row.get('compile_ms')):>10s} {second:>15s}")  # fmt: skip


def _ms(v: float | None) -> str:
    return "-" if v is None else f"{v:.4f}"


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
    p.add_argument("--phase", choices=("all", "tune", "compare"), default="all")
    p.add_argument("--cases", help="comma-separated regexes over case names (default: all 17)")
    p.add_argument("--total-s", type=float, default=345.0,
                   help="wall time of the whole command; cases it does not reach are skipped (default 345)")
    p.add_argument("--tune-s", type=float, default=100.0,
                   help="time of the tuning (default 100; at most 60%% of what the capture leaves)")
    p.add_argument("--trials", type=int, default=12, help="the most points a kernel (default 12)")
    p.add_argument("--operator-share", type=float, default=0.6,
                   help="the share of the tuning time the operator cases' kernels get first (default 0.6)")
    p.add_argument("--method", choices=("evolve", "random"), default="evolve")
    p.add_argument("--workers", type=int, default=None, help="compiling processes (default: cores - 1)")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--out", default=OUT)
    p.add_argument("--json", help="results file (default <out>/<device>-<date>-tune.json)")
    p.add_argument("-v", "--verbose", action="store_true", help="print every measured point and every kernel")
    args = p.parse_args(argv)
    cases = select(args.cases, CASES)
    if not cases:
        raise SystemExit(f"tune_suite: no case matches '{args.cases}'")
    if not torch.cuda.is_available():
        raise SystemExit("tune_suite: needs a CUDA GPU")
    start = time.perf_counter()
    deadline = start + args.total_s
    kernels, keys, progs = case_kernels(cases, print)
    print(f"{len(kernels)} distinct kernels in {len(cases)} cases ({time.perf_counter() - start:.0f} s)", flush=True)
    if args.phase in ("all", "tune"):
        left = deadline - time.perf_counter()
        budget = args.tune_s if args.phase == "tune" else min(args.tune_s, 0.6 * left)
        phase_tune(args, kernels, keys, cases, budget)
    if args.phase in ("all", "compare"):
        phase_compare(args, cases, kernels, keys, progs, deadline, start)
    print(f"tune_suite: {time.perf_counter() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
