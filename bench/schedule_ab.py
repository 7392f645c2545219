"""Schedule choices A/B, in one process: dpl's GPU time for sweep cases with `schedule` given
options (the choices its model makes: `repack=false`, `tensor-cores=true`, `precision=ieee`, ...)
beside its own pick, eager and torch.compile, to check the model against the GPU.

    python bench/schedule_ab.py --cases 'matmul_nn_3079' [--seed 1] \
        [--variants 'default,repack=false,tensor-cores=false'] [--json out.json]

A variant is `default` (the schedule as it is) or a space-separated list of schedule options
(schedule.py's `Schedule`: tensor-cores, repack, split-epilogue, precision); each is compiled
with the default pipeline, that one pass given those options. Each program is timed by
`dpl.bench.ab` (harness.benchmark: CUDA graph replays, median, inputs rotated past L2) with its
output checked against PyTorch in float64; the table gives each variant's median and its ratio to
eager (> 1: faster), `!` where its error is past 1e-5.
"""

from __future__ import annotations

import argparse
import re
import sys

from dpl.bench import ab
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
    cases = sweep.select(sweep.all_cases(seed=args.seed), args.cases)
    rows = ab.time_variants(cases, {v: variant_spec(v) for v in variants}, "eager", args.target_ms, 34)
    ab.report(rows, variants, "eager", 34, args.json, {"seed": args.seed})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
