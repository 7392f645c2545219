"""GEMM sweep (issue 16): dpl's linear layers y = x @ w.T (fp32) against cuBLAS fp32 (PyTorch eager,
TF32 off), cuBLAS TF32 (allow_tf32, same process) and torch.compile, in speed (ms and TFLOP/s)
and accuracy, on one GPU in under 5 minutes, with a chart.

    python3 bench/gemm_sweep.py [--shapes squares,linears,proj,odd | MxNxK,...] [--precision auto]
                                [--budget-s 240] [--out bench/results/gemm-sweep] [--name NAME]
    python3 bench/gemm_sweep.py --chart bench/results/gemm-sweep/<device>-<date>.json   # PNG only

Three tables:
1. kernels: the hand-written tensor-core kernels of test/lit/translate (mma_sync.mlir: one warp
   of mma.sync m16n8k8; wgmma.mlir: one warpgroup of wgmma m64n128k8, sm_90a), 3xTF32, output
   poisoned, relative error against float64 (under 1e-5: the split is really there; plain TF32
   would be near 1e-3), as tests/test_mma_gpu.py checks them;
2. linears: squares 1024, 2048, 4096, 8192 (`squares`), M in {128, 512, 2048} x N = K = 3584
   (`linears`), the decoder layers' other projections at seq 128 and 512 (`proj`: TinyLlama's
   q/o, k/v, gate/up, down; Qwen2.5-7B's k/v, gate/up, down) and odd shapes (`odd`: a ragged M,
   a ragged N, a long K, TinyLlama's down and k/v projections); a shape given twice is run once.
   Per shape the plan dpl's schedule chose (precision, kernels and grids), dpl / cuBLAS fp32 /
   cuBLAS TF32 ms (CUDA graph replays, CUDA events, median, L2 flushed before each replay;
   bench/harness.gpu_time) and TFLOP/s, torch.compile's ms (`linears` and `odd` only: on the
   other groups it is the same cuBLAS call), the speedups, ‖y − ref‖/‖ref‖ against float64
   (computed on the GPU) for dpl, cuBLAS fp32 and cuBLAS TF32, and ok: dpl's error at most twice
   cuBLAS fp32's (DESIGN.md's bar; tf32 is held to 1e-2 instead);
3. error along K: 256 x 256 x K for K = 512 .. 8192 through the default schedule: the tensor cores
   truncate their fp32 accumulation, so without promotion the error ratio grows with K (61x
   cuBLAS at K = 3584 on the first kernels); with it the ratio stays near 1.

Exit status 0 when every row is ok, 1 otherwise, 2 for bad arguments or no GPU. Writes
`<out>/<NAME>.json` (default NAME: `<device>-<date>`) with every row and, where matplotlib is installed, the chart: TFLOP/s
per shape of dpl, cuBLAS fp32 and cuBLAS TF32 (grouped bars), as `<out>/<NAME>.png` and
`<out>/tflops.png` (the README shows the latter). `--chart JSON` redraws it from a results file.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import time
from pathlib import Path

import torch

from dpl.backend.runtime import Program
from dpl.bench.harness import gpu_time
from dpl.driver.compile import compile as dpl_compile
from dpl.frontend.check import rel_err

ROOT = Path(__file__).resolve().parent.parent
LINEARS = [(m, 3584, 3584, f"linear M={m}") for m in (128, 512, 2048)]
ODD = [
    (100, 3584, 3584, "ragged M"),
    (384, 1000, 768, "ragged N"),
    (512, 2048, 8192, "long K"),
    (128, 2048, 5632, "tinyllama down s128"),
    (2048, 256, 2048, "tinyllama k/v s2048"),
]
SQUARES = [(n, n, n, f"square {n}") for n in (1024, 2048, 4096, 8192)]
#: The decoder layers' projections other than the 3584 x 3584 ones (`linears`), at seq 128 and 512:
#: (N, K) of TinyLlama's q/o, k/v, gate/up, down and Qwen2.5-7B's k/v, gate/up, down.
PROJ_NK = [(2048, 2048, "tinyllama q/o"), (256, 2048, "tinyllama k/v"), (5632, 2048, "tinyllama gate/up"),
           (2048, 5632, "tinyllama down"), (512, 3584, "qwen k/v"), (18944, 3584, "qwen gate/up"),
           (3584, 18944, "qwen down")]  # fmt: skip
PROJ = [(s, n, k, f"{what} s{s}") for s in (128, 512) for n, k, what in PROJ_NK]
#: Groups timed against torch.compile too (elsewhere torch.compile of one linear is the same cuBLAS call).
WITH_COMPILE = ("linears", "odd")
GROUPS = {"squares": SQUARES, "linears": LINEARS, "proj": PROJ, "odd": ODD}
K_SWEEP = (512, 2048, 8192)
CHART_PNG = "tflops.png"
PRECISIONS = ("auto", "3xtf32", "tf32", "ieee")


def parse_shapes(text: str) -> list[tuple[int, int, int, str]]:
    """The shapes of groups and `MxNxK`s, each (M, N, K) once (its first label)."""
    return [s[:4] for s in parse_groups(text)]


def parse_groups(text: str) -> list[tuple[int, int, int, str, bool]]:
    """(M, N, K, label, time torch.compile too) of each shape, each (M, N, K) once."""
    shapes: dict[tuple[int, int, int], tuple[int, int, int, str, bool]] = {}
    for part in (p.strip() for p in text.split(",")):
        if part in GROUPS:
            for m, n, k, label in GROUPS[part]:
                shapes.setdefault((m, n, k), (m, n, k, label, part in WITH_COMPILE))
        elif part:
            m, n, k = (int(x) for x in part.lower().split("x"))
            shapes.setdefault((m, n, k), (m, n, k, part, True))
    return list(shapes.values())


def ok(row: dict) -> bool:
    """DESIGN.md's accuracy bar: at most twice cuBLAS fp32's error (tf32, opt-in: 1e-2)."""
    if "error" in row:
        return False
    if row["precision"] == "tf32":
        return row["err"] < 1e-2
    return row["err"] <= 2 * row["cublas_err"]


# ----------------------------------------------------------------------------- 1. kernels


def kernel_rows() -> list[dict]:
    rows = []
    for name, shapes, need in (("mma_sync.mlir", {"a": (16, 8), "b": (8, 8)}, (8, 0)),
                               ("wgmma.mlir", {"a": (64, 32), "b": (128, 32)}, (9, 0))):  # fmt: skip
        row = {"kernel": name}
        cap = torch.cuda.get_device_capability()
        if cap < need or (need == (9, 0) and cap != (9, 0)):
            rows.append({**row, "error": f"needs sm_{need[0]}{need[1]}"})
            continue
        try:
            prog = Program.from_text((ROOT / "test/lit/translate" / name).read_text(), name)
            g = torch.Generator(device="cuda").manual_seed(0)
            ins = {k: torch.randn(*s, device="cuda", generator=g) for k, s in shapes.items()}
            res = prog.run(ins, out={"c": torch.full(prog.buffers["c"].shape, float("nan"), device="cuda")})
            torch.cuda.synchronize()
            row["err"] = rel_err(res["c"], ins["a"].double() @ ins["b"].double().T)
        except Exception as e:  # noqa: BLE001 - one failing kernel must not hide the rest
            row["error"] = str(e).splitlines()[0][:160]
        rows.append(row)
    return rows


# ----------------------------------------------------------------------------- 2. linears


def _linear(x: torch.Tensor, w: torch.Tensor) -> torch.Tensor:
    return torch.nn.functional.linear(x, w)  # a Python frame for torch.compile to trace


def linear_row(m: int, n: int, k: int, label: str, precision: str, compare: bool = True,
               compile_too: bool = True) -> dict:  # fmt: skip
    """One shape: dpl's plan, error and time; with `compare`, cuBLAS fp32 and TF32 (and with
    `compile_too` torch.compile) on the same inputs, timed the same way."""
    torch.backends.cuda.matmul.allow_tf32 = False
    g = torch.Generator().manual_seed(m * 7 + n * 3 + k)
    x, w = torch.randn(m, k, generator=g), torch.randn(n, k, generator=g) / k**0.5
    xg, wg = x.cuda(), w.cuda()
    ref = xg.double() @ wg.double().T  # on the GPU: 8192^3 in float64 takes tens of ms
    fn = torch.nn.functional.linear
    row: dict = {"label": label, "shape": [m, n, k], "cublas_err": rel_err(fn(xg, wg), ref)}

    def time_(f) -> float:
        return gpu_time(f, [()], flush=True, target_ms=60)["median_ms"]

    try:
        t0 = time.perf_counter()
        c = dpl_compile(fn, x, w, precision=None if precision == "auto" else precision)
        row["compile_s"] = time.perf_counter() - t0
        row["precision"] = c.precision
        row["kernels"] = [f"{kk.name} {'x'.join(map(str, kk.grid))}" for kk in c.kernels()]
        row["err"] = rel_err(c(xg, wg, poison=True), ref)
        row["dpl_ms"] = time_(lambda: c(xg, wg))
    except Exception as e:  # noqa: BLE001 - one failing shape must not hide the rest
        row["error"] = str(e).splitlines()[0][:160]
        return row
    if compare:
        row["eager_ms"] = time_(lambda: fn(xg, wg))
        torch.backends.cuda.matmul.allow_tf32 = True
        try:
            row["tf32_err"] = rel_err(fn(xg, wg), ref)
            row["tf32_ms"] = time_(lambda: fn(xg, wg))
        finally:
            torch.backends.cuda.matmul.allow_tf32 = False
    if compare and compile_too:
        torch._dynamo.reset()  # a fresh compile per shape (no dynamic-shape recompiles)
        compiled = torch.compile(_linear, dynamic=False)
        compiled(xg, wg)
        row["compile_ms"] = time_(lambda: compiled(xg, wg))
    del ref
    return row


def tflops(row: dict, key: str) -> float | None:
    """TFLOP/s of the row's `key` time (2 M N K flops), or None when it has none."""
    ms = row.get(key)
    if not ms:
        return None
    m, n, k = row["shape"]
    return 2 * m * n * k / (ms * 1e-3) / 1e12


# ----------------------------------------------------------------------------- tables


def kernel_table(rows: list[dict]) -> str:
    lines = ["| kernel | rel err vs f64 | ok (< 1e-5) |", "|---|---|---|"]
    for r in rows:
        if "error" in r:
            lines.append(f"| {r['kernel']} | {r['error']} | - |")
        else:
            lines.append(f"| {r['kernel']} | {r['err']:.1e} | {'yes' if r['err'] < 1e-5 else 'NO'} |")
    return "\n".join(lines)


def linear_table(rows: list[dict]) -> str:
    lines = ["| shape | M x N x K | dpl plan | dpl ms | cuBLAS fp32 ms | cuBLAS TF32 ms | compile ms | "
             "TFLOP/s dpl / fp32 / TF32 | eager/dpl | compile/dpl | err dpl | err cuBLAS fp32 | err TF32 | "
             "ratio | ok |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    for r in rows:
        mnk = "x".join(map(str, r["shape"]))
        if "error" in r:
            lines.append(f"| {r['label']} | {mnk} | error: {r['error']} | | | | | | | | | {r['cublas_err']:.1e} | | | NO |")
            continue
        plan = f"{r['precision']}, {len(r['kernels'])} kernels: {'; '.join(r['kernels'])}"
        e, c, t = r.get("eager_ms"), r.get("compile_ms"), r.get("tf32_ms")
        rates = " / ".join(f"{v:.1f}" if v else "-" for v in (tflops(r, key) for key in ("dpl_ms", "eager_ms", "tf32_ms")))
        cols = [f"{r['dpl_ms']:.4f}", f"{e:.4f}" if e else "-", f"{t:.4f}" if t else "-", f"{c:.4f}" if c else "-",
                rates, f"{e / r['dpl_ms']:.2f}x" if e else "-", f"{c / r['dpl_ms']:.2f}x" if c else "-"]  # fmt: skip
        te = r.get("tf32_err")
        lines.append(f"| {r['label']} | {mnk} | {plan} | {' | '.join(cols)} | {r['err']:.1e} | "
                     f"{r['cublas_err']:.1e} | {f'{te:.1e}' if te is not None else '-'} | "
                     f"{r['err'] / r['cublas_err']:.2f} | {'yes' if ok(r) else 'NO'} |")  # fmt: skip
    return "\n".join(lines)


#: The chart's series: (row key of the time, legend, colour).
SERIES = (("dpl_ms", "dpl ({precision})", "#4c72b0"), ("eager_ms", "cuBLAS fp32", "#dd8452"),
          ("tf32_ms", "cuBLAS TF32 (less accurate)", "#8c8c8c"))  # fmt: skip


def chart(doc: dict, png: str) -> str | None:
    """Grouped bars of TFLOP/s per shape (dpl, cuBLAS fp32, cuBLAS TF32) to `png`; None (and
    nothing written) where matplotlib is not installed."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    rows = [r for r in doc["linears"] if "error" not in r and r.get("eager_ms")]
    precisions = sorted({r["precision"] for r in rows})
    fig, ax = plt.subplots(figsize=(max(6.0, 0.5 * len(rows) + 2), 4.8), dpi=120)
    width = 0.8 / len(SERIES)
    top = 0.0
    for i, (key, label, color) in enumerate(SERIES):
        xs = [j + (i - (len(SERIES) - 1) / 2) * width for j in range(len(rows))]
        ys = [tflops(r, key) or 0.0 for r in rows]
        top = max([top, *ys])
        ax.bar(xs, ys, width=width, color=color, label=label.format(precision="/".join(precisions)))
    ax.set_ylim(0, top * 1.15 or 1.0)  # room for the legend above the bars
    ax.set_xticks(range(len(rows)))
    ax.set_xticklabels([f"{r['label']}\n{'x'.join(map(str, r['shape']))}" for r in rows], rotation=60,
                       ha="right", fontsize=7)  # fmt: skip
    ax.set_ylabel("TFLOP/s (2 M N K / time)")
    ax.set_title(f"y = x @ w.T, fp32 inputs, on {doc.get('device', '?')} ({doc.get('date', '?')})", fontsize=10)
    ax.grid(axis="y", alpha=0.3)
    ax.legend(fontsize=8, ncol=len(SERIES), loc="upper left")
    fig.tight_layout()
    fig.savefig(png)
    plt.close(fig)
    return png


def write_chart(doc: dict, json_path: str) -> None:
    """The chart next to `json_path` and as CHART_PNG in its folder (what the README shows)."""
    png = chart(doc, os.path.splitext(json_path)[0] + ".png")
    if png is None:
        print("no chart: matplotlib is not installed")
        return
    shutil.copyfile(png, os.path.join(os.path.dirname(json_path), CHART_PNG))
    print(f"wrote {png} and {CHART_PNG} beside it")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="squares,linears,proj,odd", help=f"groups ({', '.join(GROUPS)}) or MxNxK")
    ap.add_argument("--precision", default="auto", help=f"dpl's matmul precision: {', '.join(PRECISIONS)}")
    ap.add_argument("--out", default=str(ROOT / "bench" / "results" / "gemm-sweep"))
    ap.add_argument("--budget-s", type=float, default=240.0, help="start no new shape after this")
    ap.add_argument("--chart", metavar="JSON", help="only draw the chart of a results file (no GPU)")
    ap.add_argument("--name", help="the results' file name without .json (default: <device>-<date>)")
    a = ap.parse_args(argv)
    if a.chart:
        with open(a.chart) as f:
            write_chart(json.load(f), a.chart)
        return 0
    if a.precision not in PRECISIONS:
        print(f"gemm_sweep: unknown precision '{a.precision}' (choices: {', '.join(PRECISIONS)})", file=sys.stderr)
        return 2
    try:
        shapes = parse_groups(a.shapes)
    except ValueError:
        print(f"gemm_sweep: bad --shapes '{a.shapes}' (groups: {', '.join(GROUPS)}; or MxNxK)", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("gemm_sweep: needs a CUDA GPU", file=sys.stderr)
        return 2
    device, date = torch.cuda.get_device_name(), time.strftime("%Y-%m-%d")
    print(f"# {device}, torch {torch.__version__}, {date}: y = x @ w.T fp32; cuBLAS fp32 (TF32 off) and TF32; "
          f"L2 flushed, median of CUDA graph replays; dpl precision {a.precision}", flush=True)  # fmt: skip
    t0 = time.perf_counter()
    kernels = kernel_rows()
    print("\n## tensor-core kernels (test/lit/translate), 3xTF32\n\n" + kernel_table(kernels), flush=True)
    linears: list[dict] = []
    for m, n, k, label, compile_too in shapes:
        if time.perf_counter() - t0 > a.budget_s:
            print(f"# skipped {label}: past --budget-s", flush=True)
            continue
        linears.append(linear_row(m, n, k, label, a.precision, compile_too=compile_too))
        torch.cuda.empty_cache()
        print(f"# {label} done ({time.perf_counter() - t0:.0f} s)", flush=True)
    print("\n## linears\n\n" + linear_table(linears), flush=True)
    along_k = []
    for k in K_SWEEP:
        if time.perf_counter() - t0 > a.budget_s + 30:
            print(f"# skipped K = {k}: past --budget-s", flush=True)
            continue
        along_k.append(linear_row(256, 256, k, f"K={k}", a.precision, compare=False))
    print("\n## error along K (256 x 256 x K; flat when the tensor cores' chains are promoted)\n\n"
          + linear_table(along_k))  # fmt: skip
    rows = linears + along_k
    good = sum(ok(r) for r in rows) + sum("err" in r and r["err"] < 1e-5 for r in kernels)
    total = len(rows) + len(kernels)
    print(f"\n{good}/{total} ok ({time.perf_counter() - t0:.0f} s)")
    os.makedirs(a.out, exist_ok=True)
    path = os.path.join(a.out, f"{a.name or device.lower().replace(' ', '-') + '-' + date}.json")
    with open(path, "w") as f:
        json.dump({"device": device, "date": date, "kernels": kernels, "linears": linears, "along_k": along_k}, f, indent=1)
    print(f"wrote {path}")
    write_chart({"device": device, "date": date, "linears": linears}, path)
    return 0 if good == total else 1


if __name__ == "__main__":
    sys.exit(main())
