"""Chart and markdown table of a suite results file.

    python bench/chart.py [RESULTS.json] [--png OUT.png] [--no-png]

RESULTS defaults to the newest bench/results/*.json. Writes a PNG (speedup of dpl over eager and
over torch.compile per case, log scale, a line at 1x; default: the JSON's path with .png, and for
a file under bench/results also bench/results/speedup.png, which bench/README.md shows) and
prints a markdown table for the README. Needs matplotlib only for the PNG.
"""

from __future__ import annotations

import argparse
import glob
import json
import math
import os
import shutil
import sys
from typing import Any

RESULTS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "results")
LATEST_PNG = os.path.join(RESULTS, "speedup.png")
SERIES = (("eager", "vs PyTorch eager"), ("compile", "vs torch.compile"),
          ("max-autotune", "vs torch.compile max-autotune"))


def latest(directory: str = RESULTS) -> str:
    files = [f for f in glob.glob(os.path.join(directory, "*.json")) if not f.endswith(".tmp")]
    if not files:
        raise SystemExit(f"chart: no results JSON under {directory} (run `make bench` first)")
    return max(files, key=os.path.getmtime)


def load(path: str) -> dict[str, Any]:
    with open(path) as f:
        doc = json.load(f)
    if not isinstance(doc, dict) or not isinstance(doc.get("cases"), list):
        raise SystemExit(f"chart: {path}: not a suite results file (no 'cases' list)")
    return doc


def _geomean(vals: list[float]) -> float | None:
    vals = [v for v in vals if v is not None and math.isfinite(v) and v > 0]
    return math.exp(sum(map(math.log, vals)) / len(vals)) if vals else None


def _ms(case: dict, mode: str) -> str:
    e = case.get("variants", {}).get(mode)
    if e is None:
        return "-"
    if e.get("median_ms") is None:
        return "error" if e.get("error") else "-"
    return f"{e['median_ms']:.4f}"


def markdown(doc: dict[str, Any]) -> str:
    """A markdown table: per case the times, dpl's speedups and error, then geometric means."""
    modes = [m for m, _ in SERIES if any(m in c.get("variants", {}) for c in doc["cases"])]
    head = ["case", "dpl ms"] + [f"{m} ms" for m in modes] + [f"{m}/dpl" for m in modes] + \
        ["dpl rel err", "kernels"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for c in doc["cases"]:
        sp = c.get("speedup", {})
        err = c.get("variants", {}).get("dpl", {}).get("rel_err")
        row = [c["name"] + (" (skipped)" if c.get("skipped") else ""), _ms(c, "dpl")]
        row += [_ms(c, m) for m in modes]
        row += [f"{sp[m]:.2f}x" if sp.get(m) else "-" for m in modes]
        row += [f"{err:.1e}" if isinstance(err, (int, float)) else "-", str(c.get("num_kernels", "-"))]
        lines.append("| " + " | ".join(row) + " |")
    gm = [(m, _geomean([c.get("speedup", {}).get(m) for c in doc["cases"]])) for m in modes]
    gm_text = ", ".join(f"{m} {g:.2f}x" for m, g in gm if g is not None) or "-"
    lines.append("")
    lines.append(f"Geometric mean speedup of dpl: {gm_text}. {doc.get('device', '?')}, "
                 f"torch {doc.get('torch', '?')}, {doc.get('date', '?')}; times are GPU medians "
                 "(CUDA graphs, CUDA events); x/dpl > 1 means dpl is faster.")
    return "\n".join(lines)


def chart(doc: dict[str, Any], png: str) -> str:
    """Grouped bars of speedup per case (log scale, line at 1x); returns the PNG path."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401 - matplotlib.ticker below

    cases = [c for c in doc["cases"] if c.get("speedup")]
    series = [(m, label) for m, label in SERIES if any(c["speedup"].get(m) for c in cases)]
    fig, ax = plt.subplots(figsize=(max(6.0, 0.55 * len(cases) + 2), 4.8), dpi=120)
    width = 0.8 / max(1, len(series))
    colors = {"eager": "#4c72b0", "compile": "#dd8452", "max-autotune": "#55a868"}
    for i, (m, label) in enumerate(series):
        xs, ys = [], []
        for j, c in enumerate(cases):
            v = c["speedup"].get(m)
            if v:
                xs.append(j + (i - (len(series) - 1) / 2) * width)
                ys.append(v)
        # Bars grow from 1x (up: dpl faster, down: slower), each labelled with its value.
        ax.bar(xs, [y - 1.0 for y in ys], bottom=1.0, width=width, label=label, color=colors.get(m))
        for x, y in zip(xs, ys):
            ax.annotate(f"{y:.2g}", (x, y), ha="center", va="bottom" if y >= 1 else "top",
                        fontsize=6, xytext=(0, 1 if y >= 1 else -1), textcoords="offset points")
    ax.set_yscale("log")
    ax.axhline(1.0, color="black", linewidth=0.8)
    everything = [c["speedup"][m] for c in cases for m, _ in series if c["speedup"].get(m)]
    if everything:
        lo, hi = min(everything + [1.0]), max(everything + [1.0])
        ax.set_ylim(lo / 1.5, hi * 1.5)
        nice = [m * 10.0**e for e in range(-3, 4) for m in (1, 2, 5)]
        ax.yaxis.set_major_locator(matplotlib.ticker.FixedLocator(
            [t for t in nice if lo / 1.5 <= t <= hi * 1.5]))
    fmt = matplotlib.ticker.FuncFormatter(lambda v, _: f"{v:g}x")
    ax.yaxis.set_major_formatter(fmt)
    ax.yaxis.set_minor_formatter(matplotlib.ticker.NullFormatter())
    ax.set_xticks(range(len(cases)))
    ax.set_xticklabels([c["name"] for c in cases], rotation=60, ha="right", fontsize=8)
    ax.set_ylabel("speedup of dpl (time of other / time of dpl)")
    ax.set_title(f"dpl fp32 on {doc.get('device', '?')} ({doc.get('date', '?')}); > 1: dpl faster",
                 fontsize=10)
    ax.grid(axis="y", which="both", alpha=0.3)
    if series:
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(png)
    plt.close(fig)
    return png


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("results", nargs="?", help="results JSON (default: newest in bench/results)")
    p.add_argument("--png", help="PNG to write (default: the JSON's path with .png)")
    p.add_argument("--no-png", action="store_true", help="print the table only")
    args = p.parse_args(argv)
    path = args.results or latest()
    doc = load(path)
    print(markdown(doc))
    if not args.no_png:
        png = args.png or os.path.splitext(path)[0] + ".png"
        chart(doc, png)
        print(f"\nwrote {png}", file=sys.stderr)
        if args.png is None and os.path.samefile(os.path.dirname(os.path.abspath(path)), RESULTS):
            # A stable name for bench/README.md to show: the chart of the latest charted run.
            shutil.copyfile(png, LATEST_PNG)
            print(f"wrote {LATEST_PNG}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
