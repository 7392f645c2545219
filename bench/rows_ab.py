"""Row reductions timed on the GPU: how blockify-launch's PACK_ROW_MAX (rows of 513..1024
elements: up to it a warp each, longer ones a block of 256 lanes each) and PACK_ROW_MIN (rows of
5..31: from it 8 or 16 lanes each, shorter ones a thread each) were chosen.

    python bench/rows_ab.py [eager,compile] [REGEX]

REGEX picks programs by name (`short` for the short rows).

Prints, per program, dpl's median (CUDA graph replays, inputs rotated past L2), its error
against float64, its launch grid (rows / 8 blocks: packed a warp per row; one block per row:
not), and the medians of the modes named. To compare the two layouts, run it once as the tree
is and once with PACK_ROW_MAX changed (transforms/tile/blockify_launch.py); the figures of
2026-11-24 are in bench/results/h100-2026-11-24-session4.md.
"""

from __future__ import annotations

import re
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
    "short_softmax_81x11x64x21": (lambda x: x.softmax(-1), [(81, 11, 64, 21)]),
    "short_softmax_100003x12": (lambda x: x.softmax(-1), [(100003, 12)]),
    "short_sum_1048576x16": (lambda x: x.sum(-1), [(1048576, 16)]),
    "short_layernorm_65536x24": (lambda x: F.layer_norm(x, (24,)), [(65536, 24)]),
    "short_rmsnorm_77777x9": (lambda x, w: F.rms_norm(x, (9,), w), [(77777, 9), (9,)]),
    "short_amax_300x700x31": (lambda x: x.amax(-1), [(300, 700, 31)]),
    "short_mean_262144x8": (lambda x: x.mean(-1), [(262144, 8)]),
    "short_softmax_4096x7": (lambda x: x.softmax(-1), [(4096, 7)]),
    "short_sum_500000x5": (lambda x: x.sum(-1), [(500000, 5)]),
}


def main(argv: list[str]) -> int:
    modes = tuple(m for m in (argv[0].split(",") if argv else []) if m)
    pick = re.compile(argv[1] if len(argv) > 1 else "")
    for name, (fn, shapes) in CASES.items():
        if not pick.search(name):
            continue
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
