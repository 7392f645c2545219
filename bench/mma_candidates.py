"""Every tensor-core candidate of a linear layer's matmul, timed (issue 16): which block tile and K
split is fastest, and how far the schedule's default pick is from it.

    python3 bench/mma_candidates.py                       # the seq-128 projections, ~2 min on an H100
    python3 bench/mma_candidates.py --shapes 128x3584x3584,512x3584x3584 --tiles 128x128,64x128
    python3 bench/mma_candidates.py --compile-only --ptxas   # no GPU: plans, model, ptxas -v (nvcc)
    python3 bench/mma_candidates.py --shapes 23x2741x2816 --tiles "" --simt 2x8,4x4,4x4@64   # SIMT tiles

For each shape M x N x K (y = x @ w.T, x: M x K, w: N x K, fp32; `s128`: the 3584 x 3584 linear
and TinyLlama's q/o, gate/up, down and k/v projections at M = 128) the matmul kernel is captured
and listed as the tuner lists it (`driver.tune.program_kernels`), then scheduled at every point
`{tensor_cores: true, bm, bn, splits}` with bm x bn one of `--tiles` dividing M x N and `splits`
1 (no split) or any divisor of the K-outer trips (K / 32) that leaves >= `--min-trips` trips per
split (split-matmul-k takes any split count by hand, not only its tunable choices), plus the
schedule's default point (its heuristics: maybe SIMT, splits=0 is split-matmul-k's automatic
choice); with `--simt RxC,...` also the SIMT points of those register tiles (rows x cols on
16 x 16 threads: 2x8 is a 32 x 128 block), split as split-matmul-k chooses and unsplit. Each
point is built like a tuner candidate (`driver.tune.build_candidate`, in parallel processes,
NVRTC included) and then, in this process:

- checked: its output (poisoned first) against float64, ‖y − ref‖/‖ref‖ (3xTF32: ~2e-7);
- timed like the tuner times a candidate (backend.timing.time_launches: a CUDA graph of its
  launches, the zero fill of a split included, L2 flushed before each replay, median);
- next to cuBLAS on the same inputs, timed the same way: fp32 (TF32 off) and TF32 (allow_tf32).

Printed per shape, fastest first: the point, its grid (a split is one of the grid's axes), the
rounds of blocks the model runs it in (blocks / (132 SMs x the tile's blocks per SM), rounded
up) x the K-outer trips (of 32) of each block, dpl's modeled time (schedule.modeled_us, the
number the default pick minimizes), the measured time, the measured time per round-trip next to
the model's (`step_us`: where the first is far above the second, the blocks wait on something
the model leaves out: memory latency, atomics, the zero fill), TFLOP/s, the error, and the ratio
to cuBLAS fp32; `*` marks the default pick. Then per shape: default vs best measured vs cuBLAS
(fp32, TF32), the model's first pick, and the default and the best timed again with L2 warm (not
flushed), a diagnostic: weights that fit in L2 (TinyLlama's q/o, k/v) then come from L2, so a
large gap says the K loop waits on DRAM. `--compile-only` prints the plans and the model without timing; `--ptxas` adds each kernel's
registers and spill bytes from nvcc -Xptxas -v for sm_90a (slow: one nvcc per point). Writes
`<out>/<device>-<date>-candidates.json` (not with --compile-only).
"""

from __future__ import annotations

import argparse
import json
import math
import multiprocessing
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import torch

from dpl.backend import runtime
from dpl.backend.timing import time_launches
from dpl.dialects import loop, make_context
from dpl.dialects.parsing import parse_module
from dpl.driver.host import HostProgram
from dpl.driver.tune import build_candidate, program_kernels
from dpl.frontend import capture
from dpl.frontend.check import rel_err
from dpl.transforms.tile.schedule import classify, modeled_us, point_spec, scratch
from dpl.transforms.tile.schedule_mma import TILES as SCHEDULE_TILES
from dpl.transforms.tile.schedule_mma import blocks_per_sm, mma_launch, mma_tile, step_us
from dpl.transforms.tile.target import DEFAULT_ARCH, arch_smem

ROOT = Path(__file__).resolve().parent.parent
#: M = 128 (seq 128): the 3584 x 3584 linear; TinyLlama's q/o, gate/up, down and k/v projections.
S128 = ["128x3584x3584", "128x2048x2048", "128x5632x2048", "128x2048x5632", "128x256x2048"]
#: The wgmma tiles that compile without spills (ptxas, sm_90a: 64 x 64 148 registers, 64 x 128 250,
#: 128 x 64 127, 128 x 128 212; 64 x 256 and 128 x 256 spill 1.3-2 KB: `--tiles` can add them).
TILES = "64x64,64x128,128x64,128x128"
TARGET, SMS = "sm_90", 132
#: Where the inputs live when timing (tests run the timing path on the CPU with fakes).
DEVICE = "cuda"


def parse_mnk(text: str) -> tuple[int, int, int]:
    m, n, k = (int(x) for x in text.lower().split("x"))
    return m, n, k


def shapes_of(text: str) -> list[tuple[int, int, int]]:
    out: list[tuple[int, int, int]] = []
    for part in (p.strip() for p in text.split(",")):
        if part == "s128":
            out += [parse_mnk(s) for s in S128]
        elif part:
            out.append(parse_mnk(part))
    return out


def splits_of(trips: int, min_trips: int) -> list[int]:
    """1 and every divisor s >= 2 of `trips` leaving >= `min_trips` trips per split."""
    return [1] + [s for s in range(2, trips // min_trips + 1) if trips % s == 0]


def linear_kernel(m: int, n: int, k: int):
    """The matmul kernel of y = x @ w.T as the tuner lists it (driver.tune.Kernel)."""


    class Linear(torch.nn.Module):
        def forward(self, x, w):
            return torch.nn.functional.linear(x, w)

    prog = capture(Linear(), torch.zeros(m, k), torch.zeros(n, k), dtype=torch.float32)
    (kernel,) = [kk for kk in program_kernels(prog.module) if kk.cls == "matmul"]
    if kernel.outs != [2]:  # measure() binds (x, w, y)
        raise ValueError(f"{m}x{n}x{k}: the linear's kernel does not take (x, w, y): outs {kernel.outs}")
    return kernel


def points_of(kernel, m: int, n: int, k: int, tiles: list[tuple[int, int]], min_trips: int,
              simt: list[tuple[int, int, int]] = ()) -> list[dict]:
    """The default point first, then every SIMT point of register tiles `simt` (rows x cols on
    blocks of threads), split as split-matmul-k chooses and unsplit, then every tensor-core point
    of `tiles` x splits."""
    points = [dict(kernel.default)]
    plain = {o: v for o, v in kernel.default.items() if o not in ("tensor_cores", "bm", "bn", "block_size")}
    for rows, cols, threads in simt:
        for s in (0, 1):
            p = {**plain, "rows": rows, "cols": cols, "splits": s, "block_size": threads}
            if "tensor_cores" in kernel.space:
                p["tensor_cores"] = False
            if p not in points:
                points.append(p)
    if "tensor_cores" not in kernel.space:
        return points  # the tensor cores decline this shape: only the default (SIMT)
    for bm, bn in tiles:
        if m % bm or n % bn:
            continue
        for s in splits_of(k // 32, min_trips):
            p = {**kernel.default, "tensor_cores": True, "bm": bm, "bn": bn, "splits": s}
            if p not in points:
                points.append(p)
    return points


def describe(point: dict) -> str:
    if not point.get("tensor_cores"):
        side = 1 << (math.isqrt(point.get("block_size", 256)).bit_length() - 1)  # blockify-launch's threads a side
        return f"SIMT {point['rows'] * side}x{point['cols'] * side} splits={point['splits'] or 'auto'}"
    return f"tc {point['bm']}x{point['bn']} splits={point['splits'] or 'auto'}"


def build(text: str, point: dict, precision: str, arch: str | None, ptxas: bool) -> dict[str, Any]:
    """In a worker: the point's kernel IR (NVRTC-compiled into the cache with `arch`), its
    launches' grids, dpl's modeled time, and (with `ptxas`) nvcc's register report."""
    out = build_candidate(text, point, arch, precision)
    if "error" in out:
        return out
    ctx = make_context()
    (kernel,) = [o for o in parse_module(ctx, text, "<shape>").walk() if isinstance(o, loop.KernelOp)]
    block, _ = scratch(ctx, kernel, point_spec(classify(kernel), point, TARGET, SMS, precision))
    out["model_us"] = modeled_us(block, SMS, arch_smem(TARGET))
    host = HostProgram(parse_module(make_context(), out["kernel_ir"], "<candidate>"))
    out["grids"] = {name: "x".join(map(str, kk.grid)) for name, kk in host.kernels.items()}
    out.update(launch_figures(block))
    if ptxas:
        out["ptxas"] = {name: ptxas_report(src, host.archs.get(name) or TARGET) for name, src in host.sources.items()}
    return out


def launch_figures(block) -> dict[str, Any]:
    """The scheduled matmul tile's blocks, K-outer trips per block, the blocks the model runs at
    once, its rounds, and the model's time of one K step (tensor-core tiles; else {})."""


    t = mma_tile(block)
    launch = None if t is None else mma_launch(t)
    if launch is None:
        return {}
    tile_of = (launch.bm, launch.bn, launch.precision)
    smem = arch_smem(DEFAULT_ARCH)
    at_once = SMS * blocks_per_sm(*tile_of, launch.layout, smem)
    return {"blocks": launch.blocks, "trips": launch.trips, "at_once": at_once,
            "rounds": -(-launch.blocks // at_once), "step_us": step_us(*tile_of, SMS, launch.layout, smem)}


def ptxas_report(source: str, arch: str) -> str:
    """`R regs, S spill bytes, M smem` of nvcc -Xptxas -v for `arch` (sm_90a as -gencode)."""
    nvcc = shutil.which("nvcc")
    if nvcc is None:
        return "no nvcc"
    n = arch[len("sm_") :]
    flag = f"-gencode=arch=compute_{n},code=sm_{n}" if arch.endswith("a") else f"-arch={arch}"
    with tempfile.TemporaryDirectory() as d:
        cu = Path(d) / "k.cu"
        cu.write_text(source)
        r = subprocess.run([nvcc, flag, "-c", "-Xptxas", "-v", "-o", str(Path(d) / "k.o"), str(cu)],
                           capture_output=True, text=True)  # fmt: skip
    if r.returncode:
        return "nvcc failed: " + " ".join(r.stderr.split())[:120]
    regs = re.findall(r"Used (\d+) registers", r.stderr)
    spills = [int(a) + int(b) for a, b in re.findall(r"(\d+) bytes spill stores, (\d+) bytes spill loads", r.stderr)]
    return f"{','.join(regs)} regs, {sum(spills)} spill bytes"


def measure(kernel_ir: str, x, w, ref, flush: bool = True) -> dict[str, Any]:
    """Error against float64 (the output starts as NaN) and the median time of the launches (us),
    L2 flushed before each (`flush`) or warm. The scratch @main takes (x, w, y), as the loop
    kernel's ins and outs."""


    host = HostProgram(parse_module(make_context(), kernel_ir, "<candidate>")).load()
    y = torch.full(ref.shape, float("nan"), device=DEVICE)
    tensors = host.bind([x, w, y])
    calls = host.launchers(tensors)
    for _, c in calls:
        c()
    torch.cuda.synchronize()
    err = rel_err(tensors[2], ref)
    ms = time_launches(lambda: [c() for _, c in calls], flush=flush)
    return {"err": err, "us": statistics.median(ms) * 1e3}


def cublas(x, w, tf32: bool):
    """(median us, output) of torch's linear with TF32 off or on, timed as `measure` times."""


    torch.backends.cuda.matmul.allow_tf32 = tf32
    try:
        y = torch.nn.functional.linear(x, w)
        ms = time_launches(lambda: torch.nn.functional.linear(x, w))
    finally:
        torch.backends.cuda.matmul.allow_tf32 = False
    return statistics.median(ms) * 1e3, y


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="s128", help="s128 and/or MxNxK, comma-separated")
    ap.add_argument("--tiles", default=TILES, help="tensor-core block tiles bm x bn to try")
    ap.add_argument("--simt", default="", help="SIMT register tiles rows x cols to try (2x8: 32 x 128 blocks; "
                    "4x4@64: on blocks of 64 threads, 8 x 8, a 32 x 32 block tile)")
    ap.add_argument("--min-trips", type=int, default=4, help="fewest K-outer trips (of 32) a split keeps")
    ap.add_argument("--precision", default="3xtf32")
    ap.add_argument("--compile-only", action="store_true", help="no GPU: the plans and the model")
    ap.add_argument("--ptxas", action="store_true", help="each kernel's registers and spills (nvcc -Xptxas -v)")
    ap.add_argument("--workers", type=int, default=min(16, os.cpu_count() or 1))
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "gemm-sweep"))
    ap.add_argument("--json", help=argparse.SUPPRESS)  # a child process's one shape (see below)
    a = ap.parse_args(argv)
    try:
        shapes = shapes_of(a.shapes)
        tiles = [parse_mnk(t + "x0")[:2] for t in a.tiles.split(",") if t.strip()]
        a.simt_tiles = [(*parse_mnk(t.split("@")[0] + "x0")[:2], int(t.split("@")[1]) if "@" in t else 256)
                        for t in a.simt.split(",") if t.strip()]
    except ValueError:
        print(f"mma_candidates: bad --shapes '{a.shapes}', --tiles '{a.tiles}' or --simt '{a.simt}' (MxNxK, bmxbn)",
              file=sys.stderr)
        return 2

    gpu = not a.compile_only
    if gpu and not torch.cuda.is_available():
        print("mma_candidates: needs a CUDA GPU (or --compile-only)", file=sys.stderr)
        return 2
    device = torch.cuda.get_device_name() if gpu else "compile-only"
    date = time.strftime("%Y-%m-%d")
    if a.json is None:
        print(f"# {device}, {date}: tensor-core candidates of y = x @ w.T at {a.precision} (target {TARGET}, "
              f"{SMS} SMs); times: CUDA graph of the launches, L2 flushed, median (us)", flush=True)  # fmt: skip
    t0 = time.perf_counter()
    if gpu and a.json is None:  # each shape in a process of its own: a candidate that crashes the
        results = [child(a, m, n, k) for m, n, k in shapes]  # CUDA context costs only its shape
    else:
        results = [one_shape(a, m, n, k, tiles, gpu) for m, n, k in shapes]
    if a.json is not None:
        with open(a.json, "w") as f:
            json.dump(results[0], f)
        return 0
    print(f"\n({time.perf_counter() - t0:.0f} s)")
    if gpu:
        print("\n" + "\n".join(summary(r) for r in results))
        os.makedirs(a.out, exist_ok=True)
        path = os.path.join(a.out, f"{device.lower().replace(' ', '-')}-{date}-candidates.json")
        with open(path, "w") as f:
            json.dump({"device": device, "date": date, "precision": a.precision, "shapes": results}, f, indent=1)
        print(f"wrote {path}")
    return 0


def child(a, m: int, n: int, k: int) -> dict[str, Any]:
    """Shape M x N x K measured by this script in a child process (its table on our stdout)."""
    with tempfile.TemporaryDirectory() as d:
        out = os.path.join(d, "shape.json")
        cmd = [sys.executable, os.path.abspath(__file__), "--shapes", f"{m}x{n}x{k}", "--tiles", a.tiles,
               "--simt", a.simt, "--min-trips", str(a.min_trips), "--precision", a.precision, "--workers", str(a.workers),
               "--json", out] + (["--ptxas"] if a.ptxas else []) + (["--compile-only"] if a.compile_only else [])  # fmt: skip
        r = subprocess.run(cmd)
        if r.returncode == 0 and os.path.exists(out):
            with open(out) as f:
                return json.load(f)
    return {"shape": [m, n, k], "rows": [], "error": f"its process ended with status {r.returncode}"}


def one_shape(a, m: int, n: int, k: int, tiles: list[tuple[int, int]], gpu: bool) -> dict[str, Any]:
    """Build every point of shape M x N x K (in parallel processes) and, with `gpu`, measure them
    next to cuBLAS (first, so a candidate that crashes cannot hide it); print the table."""
    arch = None
    if gpu and DEVICE == "cuda":
        arch = runtime.device_arch()
    kernel = linear_kernel(m, n, k)
    points = points_of(kernel, m, n, k, tiles, a.min_trips, a.simt_tiles)
    with ProcessPoolExecutor(a.workers, mp_context=multiprocessing.get_context("spawn")) as pool:
        jobs = [pool.submit(build, kernel.text, p, a.precision, arch, a.ptxas) for p in points]
        rows = [{"point": describe(p), "default": i == 0, **({"tile": [p["bm"], p["bn"]]} if p.get("tensor_cores") else {}),
                 **job.result()} for i, (p, job) in enumerate(zip(points, jobs))]  # fmt: skip
    for r in rows:
        r.pop("digest", None)
    shape: dict[str, Any] = {"shape": [m, n, k], "rows": rows}
    if gpu:
        g = torch.Generator(device=DEVICE).manual_seed(m + n + k)
        x = torch.randn(m, k, device=DEVICE, generator=g)
        w = torch.randn(n, k, device=DEVICE, generator=g) / k**0.5
        ref = x.double() @ w.double().T
        for tf32 in (False, True):
            us, y = cublas(x, w, tf32)
            shape["cublas_tf32_us" if tf32 else "cublas_us"] = us
            shape["cublas_tf32_err" if tf32 else "cublas_err"] = rel_err(y, ref)

        known = [[bm, bn] for bm, bn, _ in SCHEDULE_TILES]  # the schedule's own tiles before the others
        for r in sorted(rows, key=lambda r: (not r["default"], r.get("tile", known[0]) not in known)):
            if "kernel_ir" in r:
                try:
                    r.update(measure(r["kernel_ir"], x, w, ref))
                except Exception as e:  # noqa: BLE001 - one failing candidate must not hide the rest
                    r["error"] = " ".join(str(e).split())[:160]
        timed = [r for r in rows if "us" in r]
        for r in {id(r): r for r in [rows[0], *sorted(timed, key=lambda r: r["us"])[:1]] if "us" in r}.values():
            try:
                r["warm_us"] = measure(r["kernel_ir"], x, w, ref, flush=False)["us"]  # diagnostic: L2 kept
            except Exception as e:  # noqa: BLE001
                r["warm_error"] = " ".join(str(e).split())[:160]
    for r in rows:
        r.pop("kernel_ir", None)
    print(table(shape, gpu), flush=True)
    return shape


def table(shape: dict, gpu: bool) -> str:
    m, n, k = shape["shape"]
    flop = 2 * m * n * k
    rows = shape["rows"]
    key = (lambda r: r.get("us", float("inf"))) if gpu else (lambda r: r.get("model_us", float("inf")))
    lines = [f"\n## {m} x {n} x {k} ({len(rows)} points)\n",
             "  point                          grid            rounds x trips   model us  meas us  us/trip (model)  TFLOP/s  err      vs fp32"
             + ("   ptxas (sm_90a)" if any("ptxas" in r for r in rows) else "")]  # fmt: skip
    for r in sorted(rows, key=key):
        mark = "*" if r["default"] else " "
        if "error" in r:
            lines.append(f"{mark} {r['point']:<30} error: {r['error']}")
            continue
        grid = ", ".join(g for name, g in r["grids"].items() if not name.endswith("_init"))
        shape_ = f"{r['rounds']} x {r['trips']}" if "rounds" in r else "-"
        cols = [f"{shape_:<14}", f"{r['model_us']:>8.1f}"]
        per = f"({r['step_us']:.2f})" if "step_us" in r else ""
        if "us" in r:
            per = f"{r['us'] / (r['rounds'] * r['trips']):.2f} {per}" if "rounds" in r else "-"
            cols += [f"{r['us']:>7.1f}", f"{per:<15}", f"{flop / r['us'] / 1e6:>7.1f}", f"{r['err']:.1e}",
                     f"{shape['cublas_us'] / r['us']:.2f}x"]  # fmt: skip
        else:
            cols += ["      -", f"{'- ' + per:<15}", "      -", "      -", "    -"]
        if "ptxas" in r:
            cols.append("; ".join(f"{name}: {v}" for name, v in r["ptxas"].items() if not name.endswith("_init")))
        lines.append(f"{mark} {r['point']:<30} {grid:<15} " + "  ".join(cols))
    if gpu:
        lines.append(summary(shape))
    return "\n".join(lines)


def summary(shape: dict) -> str:
    """Default vs best measured vs cuBLAS, the model's first pick, the L2-warm times."""
    m, n, k = shape["shape"]
    if "error" in shape:
        return f"summary {m}x{n}x{k}: error: {shape['error']}"
    rows = shape["rows"]
    timed = [r for r in rows if "us" in r]
    best = min(timed, key=lambda r: r["us"]) if timed else None
    default = next((r for r in rows if r["default"]), None)
    if best is None or default is None or "us" not in default:
        return f"summary {m}x{n}x{k}: the default or every candidate failed (cuBLAS fp32 {shape.get('cublas_us', float('nan')):.1f} us)"
    modeled_best = min(rows, key=lambda r: r.get("model_us", float("inf")))
    warm = [f"{r['point']} {r['warm_us']:.1f} us" for r in (default, best) if "warm_us" in r]
    return (
        f"summary {m}x{n}x{k}: default {default['point']} {default['us']:.1f} us; best {best['point']} "
        f"{best['us']:.1f} us ({default['us'] / best['us']:.2f}x the default); cuBLAS fp32 "
        f"{shape['cublas_us']:.1f} us ({shape['cublas_us'] / best['us']:.2f}x of best, "
        f"{shape['cublas_us'] / default['us']:.2f}x of default), TF32 {shape['cublas_tf32_us']:.1f} us; "
        f"model's first: {modeled_best['point']}\n"
        f"  L2 warm (not flushed; weights that fit stay in L2): {'; '.join(dict.fromkeys(warm))}"
    )


if __name__ == "__main__":
    sys.exit(main())
