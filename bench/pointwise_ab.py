"""Pointwise schedules A/B, in one process: dpl's GPU time for the sweep's pointwise cases with
the rows kept apart (the schedule before collapse-pointwise), with collapse-pointwise (one flat
axis: float4s, a bias read per element, a tail kernel for an odd count: the default), and the
flat schedule with other block sizes or two float4s per thread, beside eager and torch.compile.

    python bench/pointwise_ab.py [--cases pw_] [--variants rows,flat,flat-b512] [--json out.json]

Each program is timed by `dpl.bench.harness.benchmark` (CUDA graph replays, median, inputs
rotated past L2) with its output checked against PyTorch in float64 (rel_err, 1e-5 is the bar);
the table gives each variant's median and its ratio to torch.compile (> 1: faster).
"""

from __future__ import annotations

import argparse
import sys

import torch

from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile

sys.path.insert(0, __file__.rsplit("/", 1)[0])
import sweep  # noqa: E402

TAIL = "materialize,flatten-buffers,vectorize-access{reductions=false},accumulate-in-place,fuse-launches,widen-indices"


def _spec(collapse: bool, block: int = 256, width: int = 4) -> str:
    """The pipeline after loop IR for a program of pointwise kernels (what `schedule` runs for
    the pointwise class, spelled out so that one pass can be left out or given options; `width`
    8 gives a thread two float4s of each buffer, unrolled)."""
    w = f"{{width={width}}}"
    tile = "tileify," + (f"collapse-pointwise{w}," if collapse else "") + f"vectorize-pointwise{w},"
    return f"split-nests,{tile}blockify-launch{{block-size={block}}},mark-unroll,{TAIL}"


VARIANTS = {
    "rows": _spec(False),
    "flat": _spec(True),
    "flat-b128": _spec(True, 128),
    "flat-b512": _spec(True, 512),
    "flat-b1024": _spec(True, 1024),
    "flat-w8": _spec(True, 256, 8),
}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", default="pw_")
    p.add_argument("--variants", default=",".join(VARIANTS))
    p.add_argument("--target-ms", type=float, default=100.0)
    p.add_argument("--json")
    args = p.parse_args(argv)
    variants = [v for v in args.variants.split(",") if v]
    unknown = [v for v in variants if v not in VARIANTS]
    if unknown:
        raise SystemExit(f"pointwise_ab: unknown variant '{unknown[0]}' (known: {', '.join(VARIANTS)})")
    rows = []
    for case in sweep.select(sweep.all_cases(), args.cases):
        fn, inputs = case.build("cuda")
        row: dict = {"name": case.name}
        for i, label in enumerate(variants):
            spec = VARIANTS[label]
            res = B.benchmark(case.name, fn, inputs, modes=("eager", "compile") if i == 0 else (),
                              ceilings=False, target_ms=args.target_ms,
                              dpl=lambda f, *xs, s=spec: dpl_compile(f, *xs, pipeline=s))  # fmt: skip
            for mode in ("eager", "compile"):
                if mode in res["variants"]:
                    row[mode] = res["variants"][mode].get("median_ms")
            d = res["variants"]["dpl"]
            row[label] = {"median_ms": d.get("median_ms"), "rel_err": d.get("rel_err"),
                          "launches": res.get("num_kernels"), "error": d.get("error")}  # fmt: skip
        rows.append(row)
        print(_line(row, variants), flush=True)
    print()
    print(f"{'case':36} {'eager':>8} {'compile':>8} " + " ".join(f"{v:>16}" for v in variants))
    for row in rows:
        print(_line(row, variants))
    for v in variants:
        ratios = [row["compile"] / row[v]["median_ms"] for row in rows
                  if row.get("compile") and row[v].get("median_ms")]  # fmt: skip
        print(f"geomean x compile, {v}: {B.geomean(ratios) or 0:.3f}")
    if args.json:
        B.write_json(args.json, {"device": torch.cuda.get_device_name(), "cases": rows})
    return 0


def _line(row: dict, variants: list[str]) -> str:
    cells = []
    for v in variants:
        d = row[v]
        if d.get("error") or not d.get("median_ms"):
            cells.append(f"{'error':>16}")
            continue
        x = row["compile"] / d["median_ms"] if row.get("compile") else 0.0
        bad = "!" if (d.get("rel_err") or 0) > 1e-5 else " "
        cells.append(f"{d['median_ms']:8.4f} x{x:5.2f}{bad}")
    return f"{row['name']:36} {row.get('eager') or 0:8.4f} {row.get('compile') or 0:8.4f} " + " ".join(cells)


if __name__ == "__main__":
    raise SystemExit(main())
