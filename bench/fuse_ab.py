"""fuse-launches on and off, in one process: dpl's GPU time for the suite's decoder layers
compiled with the default pipeline and with the same pipeline minus `fuse-launches`.

    python bench/fuse_ab.py [--cases layer] [--json out.json]

Each program is timed by `dpl.bench.harness.benchmark` (CUDA graph replays, median) with its
outputs checked against PyTorch; the table gives launches, medians and the ratio off/on.
"""

from __future__ import annotations

import argparse
import sys

import torch

from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile
from dpl.transforms.pipelines import kernel_schedule

sys.path.insert(0, __file__.rsplit("/", 1)[0])
from suite import select  # noqa: E402


def _pipelines() -> dict[str, str]:
    on = kernel_schedule()
    assert on.endswith(",fuse-launches"), on
    return {"fused": on, "unfused": on[: -len(",fuse-launches")]}


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", default="layer")
    p.add_argument("--json")
    args = p.parse_args(argv)
    rows = []
    for case in select(args.cases):
        torch.manual_seed(0)
        fn, inputs = case.make()
        row = {"name": case.name}
        for label, spec in _pipelines().items():
            # benchmark compiles from CPU copies of the module and inputs, as the suite does
            res = B.benchmark(case.name, fn, inputs, modes=(), ceilings=False,
                              dpl=lambda f, *xs, s=spec: dpl_compile(f, *xs, pipeline=s),
                              target_ms=case.target_ms)
            d = res["variants"]["dpl"]
            row[label] = {"launches": res.get("num_kernels"), "median_ms": d.get("median_ms"),
                          "rel_err": d.get("rel_err"), "error": d.get("error")}
        on, off = row["fused"]["median_ms"], row["unfused"]["median_ms"]
        row["unfused_over_fused"] = off / on if on and off else None
        rows.append(row)
        print(f"{case.name}: {row['unfused']['launches']} launches {off} ms -> "
              f"{row['fused']['launches']} launches {on} ms (x{row['unfused_over_fused']})", flush=True)
    if args.json:
        B.write_json(args.json, {"device": torch.cuda.get_device_name(), "cases": rows})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
