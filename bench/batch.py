"""A batch of sweep cases (a session's ordinary programs) run one of three ways, the loops each
session's `host*.py`, `ab*.py` and `prof*.py` wrote again:

    main(CASES, ["host", REGEX])   compile each on the host (CPU device, nvcc), print its kernels
    main(CASES, ["ab", "--cases", REGEX, "--eager-only", JSON])
                                   time each against eager and torch.compile (`ab.time_variants`)
    main(CASES, ["prof", REGEX])   per-kernel times on the GPU (`harness.benchmark(profile=True)`)

REGEX picks cases by name (all when absent); JSON is where `ab` writes its table.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from dpl.bench import harness as B
from dpl.bench import sweep
from dpl.bench.ab import report, time_variants
from dpl.driver.compile import compile as dpl_compile


def host(cases: Sequence, pattern: str = "") -> None:
    """Each case compiled on the host through to nvcc: its status and kernels."""
    for case in cases:
        if not re.search(pattern, case.name):
            continue
        cls = type(case)
        build = cls.build
        cls.build = lambda self, device, _build=build: _build(self, "cpu")  # buffers drawn at random need values
        try:
            res = sweep.compile_case(case, nvcc=True)
        finally:
            cls.build = build
        status = "ERROR " + res["error"] if "error" in res else (
            "nvcc: " + res["nvcc_error"] if res.get("nvcc_error") else "ok")  # fmt: skip
        print(f"== {case.name} ({res['compile_s']:.1f} s): {status}", flush=True)
        for k in res.get("kernels", []):
            print("   " + sweep._kernel_text(k), flush=True)
        for fl in res.get("flags", []):
            print("   FLAG " + fl, flush=True)


def ab(cases: Sequence, args: Sequence[str]) -> None:
    """The cases against eager (and torch.compile unless --eager-only), the tables printed and
    written to the JSON path given."""
    pat = args[args.index("--cases") + 1] if "--cases" in args else ""
    rest = [a for i, a in enumerate(args) if not a.startswith("--") and (i == 0 or args[i - 1] != "--cases")]
    modes = ("eager",) if "--eager-only" in args else ("eager", "compile")
    picked = [c for c in cases if re.search(pat, c.name)]
    rows = time_variants(picked, {"tree": None}, "eager", 20.0, 34, modes=modes)
    report(rows, ["tree"], "eager", 34, rest[0] if rest else None)
    if "compile" in modes:
        report(rows, ["tree"], "compile", 34, None)


def prof(cases: Sequence, pattern: str = "") -> None:
    """Per-kernel median times of each case on the GPU."""
    for case in cases:
        if not re.search(pattern, case.name):
            continue
        fn, inputs = case.build("cuda")
        res = B.benchmark(case.name, fn, inputs, modes=(), profile=True, target_ms=20.0,
                          dpl=lambda f, *xs: dpl_compile(f, *xs, tune_cache=False))  # fmt: skip
        print(f"== {case.name}: {res['variants']['dpl'].get('median_ms'):.4f} ms, kernels sum {res.get('kernel_sum_ms', 0):.4f}")
        for r in res.get("profile", []):
            print(f"   {r.get('name'):32s} {r.get('median_ms', float('nan')):.4f} ms  grid {r.get('grid')} block {r.get('block')}")


def main(cases: Sequence, argv: Sequence[str]) -> None:
    how, *rest = argv
    if how == "ab":
        ab(cases, rest)
    elif how in ("host", "prof"):
        (host if how == "host" else prof)(cases, rest[0] if rest else "")
    else:
        raise SystemExit(f"batch: unknown mode '{how}' (host, ab, prof)")
