"""Pointwise schedules A/B, in one process: dpl's GPU time for the sweep's pointwise cases with
the rows kept apart (the schedule before collapse-pointwise), with collapse-pointwise (one flat
axis: float4s, a bias read per element, a tail kernel for an odd count: the default), and the
flat schedule with other block sizes or two float4s per thread, beside eager and torch.compile.

    python bench/pointwise_ab.py [--cases pw_] [--variants rows,flat,flat-b512] [--json out.json]

Each program is timed by `dpl.bench.ab` (harness.benchmark: CUDA graph replays, median, inputs
rotated past L2) with its output checked against PyTorch in float64 (rel_err, 1e-5 is the bar);
the table gives each variant's median and its ratio to torch.compile (> 1: faster).
"""

from __future__ import annotations

import argparse
import sys

from dpl.bench import ab

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
    cases = sweep.select(sweep.all_cases(), args.cases)
    rows = ab.time_variants(cases, {v: VARIANTS[v] for v in variants}, "compile", args.target_ms, 36)
    ab.report(rows, variants, "compile", 36, args.json)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
