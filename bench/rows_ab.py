"""Row reductions of 513..1024 elements, timed on the GPU: how blockify-launch's PACK_ROW_MAX
(rows up to it a warp each, longer ones a block of 256 lanes each) was chosen.

    python bench/rows_ab.py [eager,compile]

Prints, per program, dpl's median (CUDA graph replays, inputs rotated past L2), its error
against float64, its launch grid (rows / 8 blocks: packed a warp per row; one block per row:
not), and the medians of the modes named. To compare the two layouts, run it once as the tree
is and once with PACK_ROW_MAX changed (transforms/tile/blockify_launch.py); the figures of
2026-11-24 are in bench/results/h100-2026-11-24-session4.md.
"""

from __future__ import annotations

import sys

import torch

from dpl.bench import harness as B
from dpl.driver.compile import compile as dpl_compile

F = torch.nn.functional
CASES = {
    "rmsnorm_11877x583": (lambda x, w: F.rms_norm(x, (583,), w), [(11877, 583), (583,)]),
    "layernorm_4096x768": (lambda x: F.layer_norm(x, (768,)), [(4096, 768)]),
    "layernorm_16384x1024": (lambda x: F.layer_norm(x, (1024,)), [(16384, 1024)]),
    "softmax_8192x1000": (lambda x: x.softmax(-1), [(8192, 1000)]),
    "sum_16384x700": (lambda x: x.sum(-1), [(16384, 700)]),
    "rmsnorm_2048x896": (lambda x, w: F.rms_norm(x, (896,), w), [(2048, 896), (896,)]),
    "softmax_32768x520": (lambda x: x.softmax(-1), [(32768, 520)]),
    "layernorm_500x640": (lambda x: F.layer_norm(x, (640,)), [(500, 640)]),
}


def main(argv: list[str]) -> int:
    modes = tuple(m for m in (argv[0].split(",") if argv else []) if m)
    for name, (fn, shapes) in CASES.items():
        xs = [torch.randn(*s, device="cuda") for s in shapes]
        res = B.benchmark(name, fn, xs, modes=modes, ceilings=False, target_ms=60.0,
                          dpl=lambda f, *a: dpl_compile(f, *a))  # fmt: skip
        v, d = res["variants"], res["variants"]["dpl"]
        extra = " ".join(f"{m} {v[m]['median_ms']:.4f}" for m in modes if v.get(m, {}).get("median_ms"))
        grids = [k["grid"] for k in res.get("kernels", [])]
        print(f"{name:24s} dpl {d.get('median_ms') or 0:.4f} err {d.get('rel_err') or 0:.1e} grid {grids} {extra}",
              flush=True)  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
