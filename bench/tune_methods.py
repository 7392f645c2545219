"""Evolutionary search against random sampling, at an equal number of trials, on the GPU.

    python3 bench/tune_methods.py --trials 24 [--cases linear,relu_matmul,sdpa] [--classes matmul]

The distinct kernels of the selected suite cases (bench/suite.py; default: the operator cases'
matmuls) are tuned once per method (`evolve`, `random`; `--seeds` runs of each), each run from
an empty tuning cache of its own and with the same `--trials` points per kernel. A point is
measured on the GPU once (`driver.tune.GpuMeasurer`, each kernel alone, L2 flushed, median) and
the time is shared by every run that proposes the same schedule, so the runs differ only in
which points they try. Printed per kernel: the default schedule's time and the best each method
found; then the geomean over the kernels of random's best over evolve's (> 1: evolve found
faster schedules) and how often each won. JSON: `bench/results/<device>-<date>-tune-methods.json`.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import os
import statistics
import sys
import tempfile
import time
from typing import Any

import torch

from dpl.bench import harness as B
from dpl.bench.suite import CASES, select
from dpl.bench.tune_suite import OUT, captured
from dpl.driver.tune import GpuMeasurer, Kernel, program_kernels, tune
from dpl.driver.tune_cache import TuneCache


class Shared:
    """A measurer that measures each distinct candidate once and remembers the answer."""

    def __init__(self, gpu: GpuMeasurer):
        self.gpu = gpu
        self.device, self.arch = gpu.device, gpu.arch
        self.memo: dict[tuple[str, str], tuple[float | None, str | None]] = {}
        self.gpu_calls = 0
        self.order: list[tuple[str, float | None]] = []  # (kernel key, us) of this run, in order

    def measure(self, kernel: Kernel, point, reference_ir: str, ir: str):
        key = (kernel.key, hashlib.sha256(ir.encode()).hexdigest())
        if key not in self.memo:
            self.gpu_calls += 1
            self.memo[key] = self.gpu.measure(kernel, point, reference_ir, ir)
        self.order.append((kernel.key, self.memo[key][0]))
        return self.memo[key]

    def confirm(self, kernel: Kernel, points, reference_ir: str, irs):
        return [self.memo.get((kernel.key, hashlib.sha256(ir.encode()).hexdigest()), (None, None))[0] for ir in irs]


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", default="linear,relu_matmul,sdpa", help="regexes over suite case names")
    p.add_argument("--classes", default="matmul", help="kernel classes to compare on (comma-separated)")
    p.add_argument("--trials", type=int, default=24, help="points per kernel, the same for both methods")
    p.add_argument("--seeds", type=int, default=1, help="runs of each method (seeds 0..n-1)")
    p.add_argument("--budget-s", type=float, default=240.0, help="time limit of one run")
    p.add_argument("--workers", type=int, default=None)
    p.add_argument("--out", default=OUT)
    args = p.parse_args(argv)
    if not torch.cuda.is_available():
        raise SystemExit("tune_methods: needs a CUDA GPU")
    start = time.perf_counter()
    classes = set(args.classes.split(","))
    known: dict[str, Kernel] = {}
    for case in select(args.cases, CASES):
        program_kernels(captured(case)[2].module, known)
    kernels = [k for k in known.values() if k.cls in classes]
    gpu = GpuMeasurer()
    shared = Shared(gpu)
    best: dict[str, dict[str, list[float]]] = {m: {k.key: [] for k in kernels} for m in ("evolve", "random")}
    defaults: dict[str, float | None] = {}
    curves: dict[str, list[list[float]]] = {"evolve": [], "random": []}
    try:
        for seed in range(args.seeds):
            for method in ("evolve", "random"):
                shared.order = []
                with tempfile.TemporaryDirectory() as tmp:
                    results = tune(kernels, TuneCache(os.path.join(tmp, "t.sqlite")), shared, method=method,
                                   trials=args.trials, budget_s=args.budget_s, workers=args.workers,
                                   seed=seed, retune=True)  # fmt: skip
                for r in results:
                    if r.best_us is not None:
                        best[method][r.kernel.key].append(r.best_us)
                    defaults[r.kernel.key] = r.default_us
                curves[method].append(_curve(shared.order, kernels, defaults))
                print(f"{method} seed {seed}: {len(shared.order)} measured, {shared.gpu_calls} on the GPU so far "
                      f"({time.perf_counter() - start:.0f} s)", flush=True)  # fmt: skip
    finally:
        gpu.close()

    rows, ratios = [], []
    for k in kernels:
        e, r = best["evolve"][k.key], best["random"][k.key]
        if not e or not r:
            continue
        ratio = statistics.mean(r) / statistics.mean(e)
        ratios.append(ratio)
        rows.append({"kernel": k.name, "class": k.cls, "default_us": defaults.get(k.key),
                     "evolve_us": statistics.mean(e), "random_us": statistics.mean(r), "random_over_evolve": ratio})  # fmt: skip
    geo = math.exp(statistics.mean(math.log(x) for x in ratios)) if ratios else None
    doc = B.environment(ceilings=False)
    doc.update(command=" ".join(sys.argv), trials=args.trials, seeds=args.seeds, kernels=rows,
               geomean_random_over_evolve=geo, evolve_wins=sum(x > 1.001 for x in ratios),
               random_wins=sum(x < 0.999 for x in ratios), gpu_measurements=shared.gpu_calls,
               best_so_far=curves)  # fmt: skip
    path = os.path.join(args.out, f"{doc['device_slug']}-{doc['date']}-tune-methods.json")
    os.makedirs(args.out, exist_ok=True)
    B.write_json(path, doc)
    print(f"\n{'kernel':28s} {'default us':>10s} {'evolve us':>10s} {'random us':>10s} {'random/evolve':>13s}")
    for row in rows:
        print(f"{row['kernel']:28s} {row['default_us'] or 0:10.2f} {row['evolve_us']:10.2f} {row['random_us']:10.2f} "
              f"{row['random_over_evolve']:13.3f}")  # fmt: skip
    print(f"\n{args.trials} trials per kernel, {len(rows)} kernels: random's best / evolve's best, geomean "
          f"{geo:.3f}; evolve faster on {doc['evolve_wins']}, random on {doc['random_wins']}")  # fmt: skip
    for method, runs in curves.items():
        mean = [statistics.mean(c[i] for c in runs) for i in range(min(len(c) for c in runs))] if runs else []
        marks = ", ".join(f"{i + 1}: {mean[i]:.3f}" for i in range(3, len(mean), 4))
        print(f"{method}: geomean of best-so-far / default after n measurements per kernel: {marks}")
    print(f"wrote {path} ({time.perf_counter() - start:.0f} s)")
    return 0


def _curve(order: list[tuple[str, float | None]], kernels: list[Kernel], defaults: dict[str, Any]) -> list[float]:
    """Geomean over kernels of (best time so far / default time) after the n-th measurement of
    each kernel."""
    per: dict[str, list[float]] = {k.key: [] for k in kernels}
    for key, us in order:
        if key in per:
            prev = per[key][-1] if per[key] else math.inf
            per[key].append(min(prev, us if us is not None else math.inf))
    n = min((len(v) for v in per.values() if v), default=0)
    out = []
    for i in range(n):
        logs = [math.log(v[i] / defaults[k]) for k, v in per.items() if v and defaults.get(k) and math.isfinite(v[i])]
        out.append(math.exp(statistics.mean(logs)) if logs else math.nan)
    return out


if __name__ == "__main__":
    sys.exit(main())
