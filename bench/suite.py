"""dpl's benchmark suite: dpl vs PyTorch eager vs torch.compile on fp32 CUDA, one command.

    python bench/suite.py [--cases PATTERN] [--modes eager,compile,max-autotune,dpl-backend] [--profile]
                          [--out bench/results] [--budget-s 540] [--merge] [--list]
                          [--precision 3xtf32|tf32|ieee] [--no-tune-cache]

PATTERN: comma-separated regular expressions, a case runs if one matches part of its name
(e.g. `--cases rmsnorm,linear_3584x512`). Each case is timed by `dpl.bench.harness.benchmark`
(CUDA graphs, CUDA events, median, L2 kept out); the table names each row's matmul precision
and gives dpl's and eager's errors against float64 (`err64`, their ratio: <= 2 is the bar for
the tensor-core paths). Results go to
`<out>/<device-slug>-<date>.json`, rewritten after every case so a run cut short keeps what it
measured; `python bench/chart.py <json>` draws the chart. Cases run cheapest first; once
`--budget-s` seconds have passed the remaining cases are recorded as skipped (the lent device
allows 10 minutes a command, torch.compile of a decoder layer takes tens of seconds); with
`--merge`, a later run (e.g. `--cases layer`) adds its cases to the same day's file. dpl uses the
schedules `dpl tune` picked for this GPU (the tuning cache) unless `--no-tune-cache`.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import re
import sys
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch
import torch.nn.functional as F
from torch import nn

from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile

DEV = "cuda"


@dataclass
class Case:
    name: str
    #: () -> (nn.Module or callable, inputs); inputs are made on DEV, fp32.
    make: Callable[[], tuple[Any, tuple[torch.Tensor, ...]]]
    #: GPU time each variant is timed for (ms of replays); lower for slow cases.
    target_ms: float = 200.0
    tags: tuple[str, ...] = field(default_factory=tuple)


def _randn(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, device=DEV)


# ----------------------------------------------------------------------------- programs


class ReluMatmul(nn.Module):
    """relu((x + bias) @ w)."""

    def forward(self, x, bias, w):
        return torch.relu(torch.matmul(x + bias, w))


class SiluMul(nn.Module):
    """silu(g) * u: the SwiGLU gate of Qwen2.5-7B's MLP."""

    def forward(self, g, u):
        return F.silu(g) * u


class Softmax(nn.Module):
    def forward(self, x):
        return torch.softmax(x, dim=-1)


class SDPA(nn.Module):
    """Scaled dot-product attention, causal or not; GQA where k and v have fewer heads than q."""

    def __init__(self, causal: bool):
        super().__init__()
        self.causal = causal

    def forward(self, q, k, v):
        return F.scaled_dot_product_attention(q, k, v, is_causal=self.causal, enable_gqa=k.shape[1] != q.shape[1])


def _rmsnorm(shape: tuple[int, ...]):
    def make():
        norm = nn.RMSNorm(shape[-1], eps=1e-6)
        with torch.no_grad():
            norm.weight.copy_(1.0 + 0.1 * torch.randn(shape[-1]))
        return norm, (_randn(*shape),)

    return make


def _linear(k: int, n: int, seq: int, bias: bool):
    def make():
        lin = nn.Linear(k, n, bias=bias)
        with torch.no_grad():
            lin.weight.normal_(0.0, 0.02)
            if bias:
                lin.bias.normal_(0.0, 0.02)
        return lin, (_randn(1, seq, k),)

    return make


def _sdpa(heads: int, seq: int, d: int, causal: bool = True, kv_heads: int | None = None):
    kv = kv_heads or heads
    return lambda: (SDPA(causal), (_randn(1, heads, seq, d), _randn(1, kv, seq, d), _randn(1, kv, seq, d)))


def _decoder(name: str, seq: int):
    def make():
        from dpl.frontend.hf import decoder_layer

        module, inputs = decoder_layer(name, seq=seq, dtype=torch.float32, seed=0)
        return module, tuple(x.to(DEV) for x in inputs)

    return make


CASES: list[Case] = [
    Case("rmsnorm_1x32x2048", _rmsnorm((1, 32, 2048)), tags=("norm",)),
    Case("rmsnorm_1x2048x4096", _rmsnorm((1, 2048, 4096)), tags=("norm",)),
    Case("relu_matmul_16x64x16", lambda: (ReluMatmul(), (_randn(16, 64), _randn(64), _randn(64, 16))),
         tags=("matmul",)),
    Case("silu_mul_128x18944", lambda: (SiluMul(), (_randn(128, 18944), _randn(128, 18944))),
         tags=("elementwise",)),
    Case("softmax_1x28x2048x2048", lambda: (Softmax(), (_randn(1, 28, 2048, 2048),)),
         tags=("reduction",)),
    *[Case(f"linear_3584x3584_s{s}", _linear(3584, 3584, s, bias=False), tags=("linear",))
      for s in (128, 512, 2048)],
    *[Case(f"linear_3584x512_bias_s{s}", _linear(3584, 512, s, bias=True), tags=("linear",))
      for s in (128, 512, 2048)],
    *[Case(f"sdpa_causal_h28_d128_s{s}", _sdpa(28, s, 128), tags=("attention",)) for s in (128, 512, 1024, 2048)],
    Case("sdpa_h28_d128_s1024", _sdpa(28, 1024, 128, causal=False), tags=("attention",)),
    Case("sdpa_gqa_causal_h32kv4_d128_s2048", _sdpa(32, 2048, 128, kv_heads=4), tags=("attention",)),
    *[Case(f"{m}_layer_s{s}", _decoder(m, s), target_ms=100.0, tags=("decoder",))
      for m in ("tinyllama", "qwen2.5-7b") for s in (128, 512)],
]


def select(pattern: str | None, cases: list[Case] = CASES) -> list[Case]:
    if not pattern:
        return list(cases)
    pats = [re.compile(p.strip()) for p in pattern.split(",") if p.strip()]
    return [c for c in cases if any(p.search(c.name) for p in pats)]


# ----------------------------------------------------------------------------- driver


def _merged(doc: dict[str, Any], kept: list[dict[str, Any]], order: dict[str, int]) -> dict[str, Any]:
    """`doc` with the cases of an earlier run of the same file (--merge) and geometric means."""
    by_name = {c.get("name"): c for c in kept}
    for c in doc["cases"]:  # this run's result replaces an earlier one, unless it was skipped
        if not (c.get("skipped") and c.get("name") in by_name):
            by_name[c.get("name")] = c
    cases = sorted(by_name.values(), key=lambda c: order.get(c.get("name"), len(order)))
    return {**doc, "cases": cases, "geomean": B.geomeans(cases)}


def _compiler(precision: str | None, tune_cache: bool = True):
    """dpl.compile with `precision` and the tuning cache or not (None: the harness's default
    compile)."""
    if precision is None and tune_cache:
        return None
    from dpl.driver.compile import compile as dpl_compile

    return lambda fn, *inputs: dpl_compile(fn, *inputs, precision=precision, tune_cache=tune_cache)


def run(args: argparse.Namespace) -> dict[str, Any]:
    cases = select(args.cases)
    if not cases:
        raise SystemExit(f"suite: no case matches '{args.cases}'")
    if not torch.cuda.is_available():
        raise SystemExit("suite: needs a CUDA GPU")
    modes = [m.strip() for m in args.modes.split(",") if m.strip()]
    t_start = time.perf_counter()
    doc = B.environment()
    doc.update(modes=modes, profile=args.profile, command=" ".join(sys.argv), cases=[],
               precision=args.precision or "default", tune_cache=not args.no_tune_cache)
    dpl = _compiler(args.precision, not args.no_tune_cache)
    os.makedirs(args.out, exist_ok=True)
    path = args.json or os.path.join(args.out, f"{doc['device_slug']}-{doc['date']}.json")
    kept: list[dict[str, Any]] = []
    if args.merge and os.path.exists(path):
        with open(path) as f:
            kept = json.load(f).get("cases", [])
    order = {c.name: i for i, c in enumerate(CASES)}
    print(f"{doc['device']}: copy {doc['copy_gbs']:.0f} GB/s, cuBLAS fp32 "
          f"{doc['cublas_fp32_gflops'] / 1e3:.1f} TFLOP/s; {len(cases)} cases; writing {path}",
          flush=True)
    for case in cases:
        elapsed = time.perf_counter() - t_start
        if elapsed > args.budget_s:
            doc["cases"].append({"name": case.name, "skipped": f"time budget ({args.budget_s:.0f} s)",
                                 "variants": {}, "speedup": {}})
            print(f"{case.name}: skipped (budget {args.budget_s:.0f} s used)", flush=True)
            continue
        print(f"== {case.name} ({elapsed:.0f} s)", flush=True)
        torch.manual_seed(0)
        try:
            fn, inputs = case.make()
            res = B.benchmark(case.name, fn, inputs, dpl=dpl, modes=modes, profile=args.profile,
                              target_ms=case.target_ms, verbose=True)
        except Exception as e:  # noqa: BLE001 - a broken case must not end the suite
            traceback.print_exc()
            res = {"name": case.name, "error": B._one_line(e), "variants": {}, "speedup": {}}
        res["tags"] = list(case.tags)
        doc["cases"].append(res)
        if args.profile or args.verbose:
            print(B.format_table(res), flush=True)
        fn = inputs = None
        gc.collect()
        torch.cuda.empty_cache()
        doc["wall_s"] = time.perf_counter() - t_start
        B.write_json(path, _merged(doc, kept, order))
    doc["wall_s"] = time.perf_counter() - t_start
    doc = _merged(doc, kept, order)
    B.write_json(path, doc)
    print()
    print(B.format_summary(doc))
    print(f"wrote {path} ({doc['wall_s']:.0f} s)")
    return doc


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--cases", help="comma-separated regexes over case names (default: all)")
    p.add_argument("--modes", default="eager,compile",
                   help="comparison variants: eager,compile,max-autotune,dpl-backend "
                        "(torch.compile(backend='dpl')) (default eager,compile)")
    p.add_argument("--profile", action="store_true", help="time each dpl kernel alone")
    p.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results"))
    p.add_argument("--json", help="results file (default <out>/<device>-<date>.json)")
    p.add_argument("--budget-s", type=float, default=540.0,
                   help="start no new case after this many seconds (default 540)")
    p.add_argument("--no-tune-cache", action="store_true",
                   help="dpl with its default schedules (by default kernels tuned by dpl tune use their picks)")
    p.add_argument("--merge", action="store_true",
                   help="keep the cases of an existing results file that this run does not redo")
    p.add_argument("--list", action="store_true", help="list the selected cases and exit")
    p.add_argument("--precision", choices=["3xtf32", "tf32", "ieee"], default=None,
                   help="dpl's matmuls: 3xtf32 (tensor cores, fp32-level accuracy; the default), "
                        "tf32 (tensor cores, one pass, less accurate: opt-in) or ieee (SIMT fp32)")
    p.add_argument("-v", "--verbose", action="store_true", help="print each case's full table")
    args = p.parse_args(argv)
    if args.list:
        for c in select(args.cases):
            print(c.name)
        return 0
    bad = [m for m in args.modes.split(",") if m.strip() and m.strip() not in B.ALL_MODES]
    if bad:
        p.error(f"unknown mode '{bad[0]}' (known: {', '.join(B.ALL_MODES)})")
    run(args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
