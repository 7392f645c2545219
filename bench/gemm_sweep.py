"""GEMM sweep: dpl's matmuls (y = x @ w.T, fp32) in TFLOP/s against cuBLAS fp32 and TF32.

    python3 bench/gemm_sweep.py [--shapes squares,layers | 1024x1024x1024,...]
                                [--precisions 3xtf32,tf32,ieee] [--out bench/results/gemm-sweep]

Shapes (M x N x K): the squares 1024..8192 and the projections of the decoder layers at seq 128
and 512 (TinyLlama: q/o 2048x2048, k/v 256x2048, gate/up 5632x2048, down 2048x5632; Qwen2.5-7B:
q/o 3584x3584, k/v 512x3584, gate/up 18944x3584, down 3584x18944). Each dpl row is compiled
with `dpl.compile(..., precision=P)` and checked against float64 (‖y − ref‖/‖ref‖) next to
cuBLAS fp32 (TF32 off) and cuBLAS TF32; everything of a shape is timed in this one process like
bench/harness.py (CUDA graph replays, CUDA events, median, L2 flushed before each replay).

Writes `<out>/<device>-<date>.json` (rows) and `.png` (TFLOP/s per shape, one bar per variant)
and prints a markdown table: shape, variant, precision, ms, TFLOP/s, x cuBLAS fp32, x cuBLAS
TF32, rel err, err / cuBLAS fp32's err. A benchmark script, not a timed test.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import torch

from dpl.frontend.check import rel_err

SQUARES = [(n, n, n) for n in (1024, 2048, 3072, 4096, 6144, 8192)]
LAYERS = {
    "tinyllama": {"q/o": (2048, 2048), "k/v": (256, 2048), "gate/up": (5632, 2048), "down": (2048, 5632)},
    "qwen2.5-7b": {"q/o": (3584, 3584), "k/v": (512, 3584), "gate/up": (18944, 3584), "down": (3584, 18944)},
}


def layer_shapes(seqs=(128, 512)) -> list[tuple[int, int, int, str]]:
    out = []
    for model, projs in LAYERS.items():
        for seq in seqs:
            for name, (n, k) in projs.items():
                out.append((seq, n, k, f"{model} {name} s{seq}"))
    return out


def parse_shapes(text: str) -> list[tuple[int, int, int, str]]:
    shapes: list[tuple[int, int, int, str]] = []
    for part in text.split(","):
        part = part.strip()
        if part == "squares":
            shapes += [(m, n, k, f"square {m}") for m, n, k in SQUARES]
        elif part == "layers":
            shapes += layer_shapes()
        elif part:
            m, n, k = (int(x) for x in part.lower().split("x"))
            shapes.append((m, n, k, part))
    return shapes


def sweep_shape(m: int, n: int, k: int, label: str, precisions: list[str]) -> list[dict]:
    from dpl.bench.harness import gpu_time
    from dpl.driver.compile import compile as dpl_compile

    g = torch.Generator(device="cuda").manual_seed(m * 7 + n * 3 + k)
    x = torch.randn(m, k, device="cuda", generator=g)
    w = torch.randn(n, k, device="cuda", generator=g) / k**0.5
    ref = x.double() @ w.double().T
    flops = 2 * m * n * k
    rows = []
    base = {"shape": [m, n, k], "label": label}
    for name, tf32 in (("cublas fp32", False), ("cublas tf32", True)):
        torch.backends.cuda.matmul.allow_tf32 = tf32
        y = torch.nn.functional.linear(x, w)
        ms = gpu_time(lambda: torch.nn.functional.linear(x, w), [()], flush=True, target_ms=100)["median_ms"]
        rows.append({**base, "variant": name, "precision": "tf32" if tf32 else "ieee", "ms": ms,
                     "tflops": flops / ms / 1e9, "err": rel_err(y, ref)})  # fmt: skip
    torch.backends.cuda.matmul.allow_tf32 = False
    fn = torch.nn.functional.linear
    for p in precisions:
        row = {**base, "variant": f"dpl {p}", "requested": p}
        try:
            t0 = time.perf_counter()
            c = dpl_compile(fn, x.cpu(), w.cpu(), precision=p)
            row["compile_s"] = time.perf_counter() - t0
            row["precision"] = c.precision
            row["kernels"] = [f"{kk.name} {'x'.join(map(str, kk.grid))}" for kk in c.kernels()]
            y = c(x, w, poison=True)
            row["err"] = rel_err(y, ref)
            ms = gpu_time(lambda: c(x, w), [()], flush=True, target_ms=100)["median_ms"]
            row.update(ms=ms, tflops=flops / ms / 1e9)
        except Exception as e:  # noqa: BLE001 - one failing variant must not hide the rest
            row["error"] = str(e).splitlines()[0][:200]
        rows.append(row)
    return rows


def table(rows: list[dict]) -> str:
    lines = ["| shape | M x N x K | variant | precision | ms | TFLOP/s | x cuBLAS fp32 | x cuBLAS TF32 | rel err | err / fp32's |",
             "|---|---|---|---|---|---|---|---|---|---|"]  # fmt: skip
    by_shape: dict[tuple, dict[str, dict]] = {}
    for r in rows:
        by_shape.setdefault(tuple(r["shape"]), {})[r["variant"]] = r
    for r in rows:
        ref = by_shape[tuple(r["shape"])]
        f32, t32 = ref.get("cublas fp32", {}), ref.get("cublas tf32", {})
        mnk = "x".join(map(str, r["shape"]))
        if "error" in r:
            lines.append(f"| {r['label']} | {mnk} | {r['variant']} | | error: {r['error']} | | | | | |")
            continue
        xf = f"{f32['ms'] / r['ms']:.2f}" if f32.get("ms") else "-"
        xt = f"{t32['ms'] / r['ms']:.2f}" if t32.get("ms") else "-"
        ratio = f"{r['err'] / f32['err']:.2f}" if f32.get("err") else "-"
        lines.append(f"| {r['label']} | {mnk} | {r['variant']} | {r.get('precision', '')} | {r['ms']:.4f} | "
                     f"{r['tflops']:.1f} | {xf} | {xt} | {r['err']:.1e} | {ratio} |")  # fmt: skip
    return "\n".join(lines)


def chart(rows: list[dict], path: str, device: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = list(dict.fromkeys(r["label"] for r in rows))
    variants = list(dict.fromkeys(r["variant"] for r in rows))
    fig, ax = plt.subplots(figsize=(max(8, 0.6 * len(labels) * len(variants) / 2), 5))
    width = 0.8 / len(variants)
    for i, v in enumerate(variants):
        vals = []
        for lab in labels:
            r = next((r for r in rows if r["label"] == lab and r["variant"] == v), None)
            vals.append(r.get("tflops", 0) if r else 0)
        ax.bar([j + i * width for j in range(len(labels))], vals, width, label=v)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(labels))])
    ax.set_xticklabels(labels, rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("TFLOP/s (2 M N K / time)")
    ax.set_title(f"fp32 GEMM y = x @ w.T on {device}: dpl vs cuBLAS")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shapes", default="squares,layers")
    ap.add_argument("--precisions", default="3xtf32,tf32", help="dpl variants: 3xtf32, tf32, ieee")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "results", "gemm-sweep"))
    ap.add_argument("--budget-s", type=float, default=540.0, help="start no new shape after this")
    a = ap.parse_args(argv)
    precisions = [p for p in a.precisions.split(",") if p]
    bad = [p for p in precisions if p not in ("3xtf32", "tf32", "ieee")]
    if bad:
        print(f"gemm_sweep: unknown precision '{bad[0]}' (choices: 3xtf32, tf32, ieee)", file=sys.stderr)
        return 2
    shapes = parse_shapes(a.shapes)
    if not torch.cuda.is_available():
        print("gemm_sweep: needs a CUDA GPU", file=sys.stderr)
        return 2
    device = torch.cuda.get_device_name()
    date = time.strftime("%Y-%m-%d")
    os.makedirs(a.out, exist_ok=True)
    slug = device.lower().replace(" ", "-")
    base = os.path.join(a.out, f"{slug}-{date}")
    print(f"# {device} torch {torch.__version__} {date}; y = x @ w.T fp32; L2 flushed; median", flush=True)
    rows: list[dict] = []
    t0 = time.perf_counter()
    for m, n, k, label in shapes:
        if time.perf_counter() - t0 > a.budget_s:
            print(f"# skipped {label}: budget", flush=True)
            continue
        rows += sweep_shape(m, n, k, label, precisions)
        print(f"# {label} done ({time.perf_counter() - t0:.0f} s)", flush=True)
        with open(base + ".json", "w") as f:
            json.dump({"device": device, "date": date, "rows": rows}, f, indent=1)
        torch.cuda.empty_cache()
    print(table(rows))
    try:
        chart(rows, base + ".png", device)
        print(f"wrote {base}.json and {base}.png")
    except Exception as e:  # noqa: BLE001 - no matplotlib: the table and JSON still stand
        print(f"wrote {base}.json (no chart: {e})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
