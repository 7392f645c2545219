"""Schedule choices A/B, in one process: dpl's GPU time for sweep cases with `schedule` given
options (the choices its model makes: `repack=false`, `tensor-cores=true`, `precision=ieee`, ...)
beside its own pick, eager and torch.compile, to check the model against the GPU.

    python bench/schedule_ab.py --cases 'matmul_nn_3079' [--seed 1] \
        [--variants 'default,repack=false,tensor-cores=false'] [--json out.json]

A variant is `default` (the schedule as it is) or a space-separated list of schedule options
(schedule.py's `Schedule`: tensor-cores, repack, split-epilogue, precision); each is compiled
with the default pipeline, that one pass given those options. Each program is timed by
`dpl.bench.harness.benchmark` (CUDA graph replays, median, inputs rotated past L2) with its output
checked against PyTorch in float64; the table gives each variant's median and its ratio to eager
(> 1: faster), `!` where its error is past 1e-5.
"""

from __future__ import annotations

import argparse
import re
import sys

import torch

from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.pipelines import kernel_schedule

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sweep  # noqa: E402


def variant_spec(variant: str) -> str | None:
    """The pipeline after loop IR for `variant` (None: the default, dpl's own)."""
    if variant == "default":
        return None
    return re.sub(r"\bschedule\b(?!\{)", f"schedule{{{variant}}}", kernel_schedule(), count=1)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", required=True, help="comma-separated regexes over sweep case names")
    p.add_argument("--seed", type=int, default=0, help="the sweep's seed (its random cases)")
    p.add_argument("--variants", default="default,repack=false,repack=true,tensor-cores=false")
    p.add_argument("--target-ms", type=float, default=60.0)
    p.add_argument("--json")
    args = p.parse_args(argv)
    variants = [v.strip() for v in args.variants.split(",") if v.strip()]
    rows = []
    for case in sweep.select(sweep.all_cases(seed=args.seed), args.cases):
        fn, inputs = case.build("cuda")
        row: dict = {"name": case.name}
        for i, label in enumerate(variants):
            spec = variant_spec(label)
            res = B.benchmark(case.name, fn, inputs, modes=("eager", "compile") if i == 0 else (),
                              ceilings=False, target_ms=args.target_ms,
                              dpl=lambda f, *xs, s=spec: dpl_compile(f, *xs, pipeline=s))  # fmt: skip
            for mode in ("eager", "compile"):
                if mode in res["variants"]:
                    row[mode] = res["variants"][mode].get("median_ms")
            d = res["variants"]["dpl"]
            row[label] = {"median_ms": d.get("median_ms"), "rel_err": d.get("rel_err"),
                          "kernels": [k["name"] for k in res.get("kernels", [])], "error": d.get("error")}  # fmt: skip
        rows.append(row)
        print(_line(row, variants), flush=True)
    print()
    print(f"{'case':34} {'eager':>8} {'compile':>8} " + " ".join(f"{v[:16]:>16}" for v in variants))
    for row in rows:
        print(_line(row, variants))
    for v in variants:
        ratios = [row["eager"] / row[v]["median_ms"] for row in rows if row.get("eager") and row[v].get("median_ms")]
        print(f"geomean x eager, {v}: {B.geomean(ratios) or 0:.3f}")
    if args.json:
        B.write_json(args.json, {"device": torch.cuda.get_device_name(), "seed": args.seed, "cases": rows})
    return 0


def _line(row: dict, variants: list[str]) -> str:
    cells = []
    for v in variants:
        d = row[v]
        if d.get("error") or not d.get("median_ms"):
            cells.append(f"{'error':>16}")
            continue
        x = row["eager"] / d["median_ms"] if row.get("eager") else 0.0
        bad = "!" if (d.get("rel_err") or 0) > 1e-5 else " "
        cells.append(f"{d['median_ms']:8.4f} x{x:5.2f}{bad}")
    return f"{row['name']:34} {row.get('eager') or 0:8.4f} {row.get('compile') or 0:8.4f} " + " ".join(cells)


if __name__ == "__main__":
    raise SystemExit(main())
